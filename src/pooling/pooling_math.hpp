// Pooling arithmetic every backend runs, written once: one output element of the forward pass
// and one input element of the backward pass, over a geometry that treats 2-D pooling as 3-D
// with depth 1. Loads go through a callable (each backend converts its own 16-bit types), and
// the functions are __host__ __device__ under nvcc so the CUDA kernels call the same code.
//
// MIOpen's semantics (MIOpenPoolingForwardNaive.cl, MIOpenPoolingBwd*.cl):
// - A window starts at o * stride - pad and is clipped to the input.
// - Max: the first strictly greater element wins (ties keep the earliest in d, h, w order; NaN
//   never wins); an all-NaN / -inf or empty window gives the type's lowest finite value and
//   index 0. Mask index = position inside the unclipped window ((d - d0) * kh * kw +
//   (h - h0) * kw + (w - w0)); image index = d * H * W + h * W + w.
// - Average: the sum over the clipped window divided by its size (exclusive; 1 when empty), or
//   by the whole window's size (inclusive), accumulated in fp32.
// - Backward is a gather: each input element sums what the outputs whose windows cover it send
//   it (max: only outputs whose stored index names it), so every dx element is written once.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>

#include "core/host_device.hpp"

namespace anydnn::pool {

// Lengths and strides in elements, dimension order n, c, d, h, w (2-D: d = 1, stride 0).
struct PoolGeometry {
  long long n = 0, c = 0;
  long long in[3] = {1, 1, 1};   // input d, h, w
  long long out[3] = {1, 1, 1};  // output d, h, w
  int k[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, stride[3] = {1, 1, 1};
  // Forward: x and y strides; backward: dx and dy strides.
  long long xs[5] = {}, ys[5] = {};
  int mode = miopenPoolingMax;
  int index_mode = miopenPoolingWorkspaceIndexMask;
  int index_type = miopenIndexUint8;

  ANYDNN_HD long long out_count() const { return n * c * out[0] * out[1] * out[2]; }
  ANYDNN_HD long long in_count() const { return n * c * in[0] * in[1] * in[2]; }
};

ANYDNN_HD inline long long pmin(long long a, long long b) {
  return a < b ? a : b;
}
ANYDNN_HD inline long long pmax(long long a, long long b) {
  return a > b ? a : b;
}

struct PoolPoint {
  float value;
  uint64_t index;
};

// The window of output (o0, o1, o2) along each dimension: unclipped start and clipped range.
struct PoolWindow {
  long long start[3], lo[3], hi[3];
};

ANYDNN_HD inline PoolWindow pool_window(const PoolGeometry& g, const long long (&o)[3]) {
  PoolWindow w;
  for (int i = 0; i < 3; ++i) {
    w.start[i] = o[i] * g.stride[i] - g.pad[i];
    w.lo[i] = pmax(w.start[i], 0);
    w.hi[i] = pmin(w.start[i] + g.k[i], g.in[i]);
  }
  return w;
}

ANYDNN_HD inline long long pool_divisor(const PoolGeometry& g, const PoolWindow& w) {
  if (g.mode == miopenPoolingAverageInclusive)
    return static_cast<long long>(g.k[0]) * g.k[1] * g.k[2];
  long long s = 1;
  for (int i = 0; i < 3; ++i)
    s *= pmax(w.hi[i] - w.lo[i], 0);
  return s == 0 ? 1 : s;
}

// One output element; `x` is the (n, c) plane's start, load(ptr) -> float. `lowest` is the data
// type's lowest finite value (max pooling's start).
template <class T, class Load>
ANYDNN_HD inline PoolPoint pool_forward_point(const PoolGeometry& g, const T* x,
                                              const long long (&o)[3], float lowest, Load load) {
  const PoolWindow w = pool_window(g, o);
  if (g.mode == miopenPoolingMax) {
    float best = lowest;
    long long bd = 0, bh = 0, bw = 0;
    bool found = false;
    for (long long d = w.lo[0]; d < w.hi[0]; ++d)
      for (long long h = w.lo[1]; h < w.hi[1]; ++h)
        for (long long i = w.lo[2]; i < w.hi[2]; ++i) {
          const float v = load(x + d * g.xs[2] + h * g.xs[3] + i * g.xs[4]);
          if (v > best) {
            best = v;
            bd = d;
            bh = h;
            bw = i;
            found = true;
          }
        }
    uint64_t index = 0;
    if (found) {
      if (g.index_mode == miopenPoolingWorkspaceIndexImage)
        index = static_cast<uint64_t>((bd * g.in[1] + bh) * g.in[2] + bw);
      else
        index = static_cast<uint64_t>(((bd - w.start[0]) * g.k[1] + (bh - w.start[1])) * g.k[2] +
                                      (bw - w.start[2]));
    }
    return {best, index};
  }
  float sum = 0.0f;
  for (long long d = w.lo[0]; d < w.hi[0]; ++d)
    for (long long h = w.lo[1]; h < w.hi[1]; ++h)
      for (long long i = w.lo[2]; i < w.hi[2]; ++i)
        sum += load(x + d * g.xs[2] + h * g.xs[3] + i * g.xs[4]);
  return {sum / static_cast<float>(pool_divisor(g, w)), 0};
}

// The index stored for output element `flat` (packed n, c, d, h, w order, whatever y's layout).
ANYDNN_HD inline uint64_t pool_load_index(const void* ws, int index_type, long long flat) {
  switch (index_type) {
    case miopenIndexUint8:
      return static_cast<const uint8_t*>(ws)[flat];
    case miopenIndexUint16:
      return static_cast<const uint16_t*>(ws)[flat];
    case miopenIndexUint32:
      return static_cast<const uint32_t*>(ws)[flat];
    default:
      return static_cast<const uint64_t*>(ws)[flat];
  }
}

ANYDNN_HD inline void pool_store_index(void* ws, int index_type, long long flat, uint64_t v) {
  switch (index_type) {
    case miopenIndexUint8:
      static_cast<uint8_t*>(ws)[flat] = static_cast<uint8_t>(v);
      break;
    case miopenIndexUint16:
      static_cast<uint16_t*>(ws)[flat] = static_cast<uint16_t>(v);
      break;
    case miopenIndexUint32:
      static_cast<uint32_t*>(ws)[flat] = static_cast<uint32_t>(v);
      break;
    default:
      static_cast<uint64_t*>(ws)[flat] = v;
      break;
  }
}

// The gradient of input element (i0, i1, i2) of plane `nc` (n * C + c): dy is the plane's start
// in dy (strides g.ys), ws the whole index workspace (max only).
template <class T, class Load>
ANYDNN_HD inline float pool_backward_point(const PoolGeometry& g, const T* dy, const void* ws,
                                           long long nc, const long long (&i)[3], Load load) {
  long long lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    // Outputs o with o * s - p <= i < o * s - p + k.
    const long long t = i[a] + g.pad[a];
    lo[a] = t < g.k[a] ? 0 : (t - g.k[a]) / g.stride[a] + 1;
    hi[a] = pmin(t / g.stride[a] + 1, g.out[a]);
  }
  float sum = 0.0f;
  const long long plane = g.out[0] * g.out[1] * g.out[2];
  const uint64_t image = static_cast<uint64_t>((i[0] * g.in[1] + i[1]) * g.in[2] + i[2]);
  for (long long od = lo[0]; od < hi[0]; ++od)
    for (long long oh = lo[1]; oh < hi[1]; ++oh)
      for (long long ow = lo[2]; ow < hi[2]; ++ow) {
        const float v = load(dy + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4]);
        const long long o[3] = {od, oh, ow};
        if (g.mode == miopenPoolingMax) {
          const long long flat = nc * plane + (od * g.out[1] + oh) * g.out[2] + ow;
          const uint64_t idx = pool_load_index(ws, g.index_type, flat);
          uint64_t mine = image;
          if (g.index_mode != miopenPoolingWorkspaceIndexImage) {
            long long rel[3];
            for (int a = 0; a < 3; ++a)
              rel[a] = i[a] - (o[a] * g.stride[a] - g.pad[a]);
            mine = static_cast<uint64_t>((rel[0] * g.k[1] + rel[1]) * g.k[2] + rel[2]);
          }
          if (idx == mine) sum += v;
        } else {
          sum += v / static_cast<float>(pool_divisor(g, pool_window(g, o)));
        }
      }
  return sum;
}

}  // namespace anydnn::pool
