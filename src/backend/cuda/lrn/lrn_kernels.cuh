// The CUDA LRN kernels both solvers launch: one thread per output element (grid-stride, w
// fastest so packed rows are coalesced), summing its window directly (N channels, or an N x N
// square of the map, clipped to the tensor). Backward recomputes each window term
// dy * y / scale from the kept scale. The arithmetic is lrn_math.hpp's, shared with the CPU
// solvers.
#pragma once

#include <cuda_runtime.h>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "lrn/lrn_math.hpp"
#include "lrn/lrn_solver.hpp"

namespace anydnn::cuda::lrn_kernels {

constexpr unsigned kBlock = 256;

struct Args {
  long long n, c, h, w;
  LrnStrides x, y, dy, dx;  // the scale lives at y's strides
  lrn::Consts k;
  bool save_scale;
};

// I: the type of the element index and its decomposition. int where the tensor allows it (a
// 64-bit division is emulated, ~70 instructions; three per element made the kernel
// instruction-bound at a third of cuDNN's speed), long long otherwise.
template <bool Cross, bool Fwd, class T, class I>
__global__ void __launch_bounds__(kBlock)
    lrn_kernel(const T* x, T* y, const T* dy, T* dx, T* scale, Args a) {
  const I total = static_cast<I>(a.n * a.c * a.h * a.w);
  const I aw = static_cast<I>(a.w), ah = static_cast<I>(a.h), ac = static_cast<I>(a.c);
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    I r = i;
    const long long w = r % aw;
    r /= aw;
    const long long h = r % ah;
    r /= ah;
    const long long c = r % ac;
    const long long n = r / ac;
    // Forward's window is [i - pre_pad, i + pad]; backward's the transpose.
    const int before = Fwd ? a.k.pre_pad : a.k.pad, after = Fwd ? a.k.pad : a.k.pre_pad;
    auto term = [&](long long cc, long long hh, long long ww) {
      if constexpr (Fwd) {
        const float v = load(x[lrn::offset(a.x, n, cc, hh, ww)]);
        return v * v;
      } else {
        const long long yo = lrn::offset(a.y, n, cc, hh, ww);
        return load(dy[lrn::offset(a.dy, n, cc, hh, ww)]) * load(y[yo]) / load(scale[yo]);
      }
    };
    float sum = 0.0f;
    if constexpr (Cross) {
      const long long hi = lrn::window_hi(c, after, a.c);
      for (long long j = lrn::window_lo(c, before); j <= hi; ++j)
        sum += term(j, h, w);
    } else {
      const long long hhi = lrn::window_hi(h, after, a.h), whi = lrn::window_hi(w, after, a.w);
      const long long wlo = lrn::window_lo(w, before);
      for (long long hh = lrn::window_lo(h, before); hh <= hhi; ++hh)
        for (long long ww = wlo; ww <= whi; ++ww)
          sum += term(c, hh, ww);
    }
    const float xv = load(x[lrn::offset(a.x, n, c, h, w)]);
    const long long yo = lrn::offset(a.y, n, c, h, w);
    if constexpr (Fwd) {
      const float s = lrn::scale_of(sum, a.k);
      y[yo] = store<T>(lrn::forward_value(xv, s, a.k));
      if (a.save_scale) scale[yo] = store<T>(s);
    } else {
      dx[lrn::offset(a.dx, n, c, h, w)] = store<T>(lrn::backward_value(
          load(dy[lrn::offset(a.dy, n, c, h, w)]), load(scale[yo]), xv, sum, a.k));
    }
  }
}

template <bool Cross>
void launch(CudaBackend& be, const LrnProblem& p, const LrnBuffers& b) {
  const auto& l = p.lens();
  const Args a{l[0],
               l[1],
               l[2],
               l[3],
               p.x_strides(),
               p.y_strides(),
               p.dy_strides(),
               p.dx_strides(),
               lrn::consts_of(p),
               p.forward() && p.uses_workspace()};
  const long long total = p.elements();
  if (total == 0) return;  // a grid of 0 blocks is a launch error
  const long long cap = static_cast<long long>(be.properties().multiProcessorCount) * 32;
  const long long blocks = (total + kBlock - 1) / kBlock;
  const unsigned grid = static_cast<unsigned>(blocks < cap ? blocks : cap);
  cudaStream_t s = be.cuda_stream();
  dispatch_float_type(p.data_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(b.x);
    T* y = static_cast<T*>(b.y);
    const T* dy = static_cast<const T*>(b.dy);
    T* dx = static_cast<T*>(b.dx);
    T* scale = static_cast<T*>(b.workspace);
    // Headroom for the grid-stride step past the last element.
    const bool narrow = total < (1LL << 31) - (1LL << 24);
    if (p.forward() && narrow)
      lrn_kernel<Cross, true, T, int><<<grid, kBlock, 0, s>>>(x, y, dy, dx, scale, a);
    else if (p.forward())
      lrn_kernel<Cross, true, T, long long><<<grid, kBlock, 0, s>>>(x, y, dy, dx, scale, a);
    else if (narrow)
      lrn_kernel<Cross, false, T, int><<<grid, kBlock, 0, s>>>(x, y, dy, dx, scale, a);
    else
      lrn_kernel<Cross, false, T, long long><<<grid, kBlock, 0, s>>>(x, y, dy, dx, scale, a);
  });
  ANYDNN_CUDA_LAUNCHED("lrn");
}

}  // namespace anydnn::cuda::lrn_kernels
