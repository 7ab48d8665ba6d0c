// 2-D pooling kernels with 32-bit index arithmetic, which the CUDA pooling solvers launch when the
// problem is 2-D and has fewer than 2^31 output and input elements (every network shape). Why:
// the generic kernels (pooling_math.hpp over 3-D geometry) spend most of their time in 64-bit
// divisions (emulated on the GPU, ~70 instructions each, five per element), which made them
// instruction-bound at a third of cuDNN's speed on ResNet's stem. Here each element costs three
// 32-bit divisions and the window loop; offsets stay 64-bit (multiplications only). The results
// are those of pooling_math.hpp, element for element: same window clipping, the same first
// strictly greater maximum, the same index encodings and the same fp32 sums in the same order.
// ChannelsInner picks which index consecutive threads take: c (channels-last tensors: coalesced
// rows of channels), else w.
#pragma once

#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/pooling/pool_cuda_util.cuh"
#include "pooling/pooling_math.hpp"

namespace anydnn::cuda::pool2d {

struct Geometry {
  int n, c, ih, iw, oh, ow, kh, kw, ph, pw, sh, sw;
  // Forward: x / y strides; backward: dx / dy strides (n, c, h, w).
  long long xs[4], ys[4];
  int mode, index_mode, index_type;
  int out_count, in_count;
};

// The 2-D, 32-bit form of `g`, or false where the generic kernels must run.
inline bool make(const pool::PoolGeometry& g, Geometry& q) {
  // Headroom for the grid-stride step past the last element.
  constexpr long long kMax = (1LL << 31) - (1LL << 24);
  if (g.in[0] != 1 || g.out[0] != 1 || g.k[0] != 1 || g.out_count() > kMax || g.in_count() > kMax)
    return false;
  const auto i32 = [](long long v) { return static_cast<int>(v); };
  q.n = i32(g.n);
  q.c = i32(g.c);
  q.ih = i32(g.in[1]);
  q.iw = i32(g.in[2]);
  q.oh = i32(g.out[1]);
  q.ow = i32(g.out[2]);
  q.kh = g.k[1];
  q.kw = g.k[2];
  q.ph = g.pad[1];
  q.pw = g.pad[2];
  q.sh = g.stride[1];
  q.sw = g.stride[2];
  const int dims[4] = {0, 1, 3, 4};  // n, c, h, w (2-D: depth 1, stride 0)
  for (int i = 0; i < 4; ++i) {
    q.xs[i] = g.xs[dims[i]];
    q.ys[i] = g.ys[dims[i]];
  }
  q.mode = g.mode;
  q.index_mode = g.index_mode;
  q.index_type = g.index_type;
  q.out_count = i32(g.out_count());
  q.in_count = i32(g.in_count());
  return true;
}

// Element e of an n x c x h x w space in thread order: w fastest, or c fastest.
template <bool ChannelsInner>
__device__ inline void split(int e, int c_len, int h_len, int w_len, int& n, int& c, int& h,
                             int& w) {
  if (ChannelsInner) {
    c = e % c_len;
    e /= c_len;
    w = e % w_len;
    e /= w_len;
    h = e % h_len;
    n = e / h_len;
  } else {
    w = e % w_len;
    e /= w_len;
    h = e % h_len;
    e /= h_len;
    c = e % c_len;
    n = e / c_len;
  }
}

template <class T, bool ChannelsInner>
__global__ void __launch_bounds__(pool_util::kBlock)
    forward(Geometry g, const T* __restrict__ x, T* __restrict__ y, void* ws, bool save,
            float alpha, float beta) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < g.out_count;
       e += gridDim.x * blockDim.x) {
    int n, c, oh, ow;
    split<ChannelsInner>(e, g.c, g.oh, g.ow, n, c, oh, ow);
    const T* plane = x + n * g.xs[0] + c * g.xs[1];
    const int hs = oh * g.sh - g.ph, wst = ow * g.sw - g.pw;
    const int h0 = max(hs, 0), h1 = min(hs + g.kh, g.ih);
    const int w0 = max(wst, 0), w1 = min(wst + g.kw, g.iw);
    float value;
    unsigned index = 0;
    if (g.mode == miopenPoolingMax) {
      float best = pool_util::lowest<T>();
      int bh = -1, bw = 0;
      for (int h = h0; h < h1; ++h) {
        const T* row = plane + h * g.xs[2];
        for (int w = w0; w < w1; ++w) {
          const float v = load(row[w * g.xs[3]]);
          if (v > best) {
            best = v;
            bh = h;
            bw = w;
          }
        }
      }
      value = best;
      if (bh >= 0)
        index = g.index_mode == miopenPoolingWorkspaceIndexImage
                    ? static_cast<unsigned>(bh * g.iw + bw)
                    : static_cast<unsigned>((bh - hs) * g.kw + (bw - wst));
    } else {
      float sum = 0.0f;
      for (int h = h0; h < h1; ++h) {
        const T* row = plane + h * g.xs[2];
        for (int w = w0; w < w1; ++w)
          sum += load(row[w * g.xs[3]]);
      }
      int div = g.kh * g.kw;
      if (g.mode != miopenPoolingAverageInclusive) {
        div = max(h1 - h0, 0) * max(w1 - w0, 0);
        if (div == 0) div = 1;
      }
      value = sum / static_cast<float>(div);
    }
    pool_util::blend(y + n * g.ys[0] + c * g.ys[1] + oh * g.ys[2] + ow * g.ys[3], value, alpha,
                     beta);
    if (save)
      pool::pool_store_index(ws, g.index_type, ((n * g.c + c) * g.oh + oh) * g.ow + ow, index);
  }
}

// One thread per dx element, gathering from the outputs whose windows cover it (no atomics:
// reruns give identical bytes).
template <class T, bool ChannelsInner>
__global__ void __launch_bounds__(pool_util::kBlock)
    backward(Geometry g, const T* __restrict__ dy, T* __restrict__ dx, const void* ws, float alpha,
             float beta) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < g.in_count; e += gridDim.x * blockDim.x) {
    int n, c, ih, iw;
    split<ChannelsInner>(e, g.c, g.ih, g.iw, n, c, ih, iw);
    // Outputs o with o * s - p <= i < o * s - p + k.
    const int th = ih + g.ph, tw = iw + g.pw;
    const int oh0 = th < g.kh ? 0 : (th - g.kh) / g.sh + 1, oh1 = min(th / g.sh + 1, g.oh);
    const int ow0 = tw < g.kw ? 0 : (tw - g.kw) / g.sw + 1, ow1 = min(tw / g.sw + 1, g.ow);
    const T* plane = dy + n * g.ys[0] + c * g.ys[1];
    const int out_plane = (n * g.c + c) * g.oh;
    float sum = 0.0f;
    for (int oh = oh0; oh < oh1; ++oh) {
      const int hs = oh * g.sh - g.ph;
      for (int ow = ow0; ow < ow1; ++ow) {
        const int wst = ow * g.sw - g.pw;
        const float v = load(plane[oh * g.ys[2] + ow * g.ys[3]]);
        if (g.mode == miopenPoolingMax) {
          const unsigned mine = g.index_mode == miopenPoolingWorkspaceIndexImage
                                    ? static_cast<unsigned>(ih * g.iw + iw)
                                    : static_cast<unsigned>((ih - hs) * g.kw + (iw - wst));
          if (pool::pool_load_index(ws, g.index_type, (out_plane + oh) * g.ow + ow) == mine)
            sum += v;
        } else {
          int div = g.kh * g.kw;
          if (g.mode != miopenPoolingAverageInclusive) {
            div = max(min(hs + g.kh, g.ih) - max(hs, 0), 0) *
                  max(min(wst + g.kw, g.iw) - max(wst, 0), 0);
            if (div == 0) div = 1;
          }
          sum += v / static_cast<float>(div);
        }
      }
    }
    pool_util::blend(dx + n * g.xs[0] + c * g.xs[1] + ih * g.xs[2] + iw * g.xs[3], sum, alpha,
                     beta);
  }
}

}  // namespace anydnn::cuda::pool2d
