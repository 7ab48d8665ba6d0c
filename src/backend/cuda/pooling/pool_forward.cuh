// The CUDA pooling forward both forward solvers launch: one thread per output element
// (grid-stride), each running pooling_math.hpp's window loop (the CPU solvers' code), or for 2-D
// problems the same arithmetic with 32-bit indices (pool_2d_kernels.cuh).
// ChannelsInner picks which index consecutive threads take: c for NHWC / NDHWC
// (PoolFwdChannelsLast: coalesced channel rows), ow for NCHW (PoolFwdDirect).
#pragma once

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/pooling/pool_2d_kernels.cuh"
#include "backend/cuda/pooling/pool_cuda_util.cuh"
#include "pooling/pooling_problem.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn::cuda {

namespace {

template <class T, bool ChannelsInner>
__global__ void __launch_bounds__(pool_util::kBlock)
    pool_forward(pool::PoolGeometry g, const T* x, T* y, void* ws, bool save, float alpha,
                 float beta) {
  const long long count = g.out_count();
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long n, c, od, oh, ow, r = e;
    if (ChannelsInner) {
      c = r % g.c;
      r /= g.c;
    }
    ow = r % g.out[2];
    r /= g.out[2];
    oh = r % g.out[1];
    r /= g.out[1];
    od = r % g.out[0];
    r /= g.out[0];
    if (!ChannelsInner) {
      c = r % g.c;
      r /= g.c;
    }
    n = r;
    const long long o[3] = {od, oh, ow};
    const pool::PoolPoint pt = pool::pool_forward_point(
        g, x + n * g.xs[0] + c * g.xs[1], o, pool_util::lowest<T>(), pool_util::Loader<T>{});
    pool_util::blend(y + n * g.ys[0] + c * g.ys[1] + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4],
                     pt.value, alpha, beta);
    if (save)
      pool::pool_store_index(ws, g.index_type,
                             (((n * g.c + c) * g.out[0] + od) * g.out[1] + oh) * g.out[2] + ow,
                             pt.index);
  }
}

template <bool ChannelsInner>
void launch_pool_forward(const ExecutionContext& ctx, const PoolingProblem& p,
                         const PoolingBuffers& b) {
  CudaBackend& be = backend_of(ctx);
  const pool::PoolGeometry& g = p.geometry();
  const unsigned grid = pool_util::grid_for(be, g.out_count());
  cudaStream_t s = be.cuda_stream();
  pool2d::Geometry q;
  const bool two_d = pool2d::make(g, q);
  dispatch_float_type(p.data_type(), [&](auto tag) {
    using T = decltype(tag);
    if (two_d) {
      pool2d::forward<T, ChannelsInner>
          <<<grid, pool_util::kBlock, 0, s>>>(q, static_cast<const T*>(b.x), static_cast<T*>(b.y),
                                              b.workspace, p.saves_index(), b.alpha, b.beta);
      return;
    }
    pool_forward<T, ChannelsInner>
        <<<grid, pool_util::kBlock, 0, s>>>(g, static_cast<const T*>(b.x), static_cast<T*>(b.y),
                                            b.workspace, p.saves_index(), b.alpha, b.beta);
  });
  ANYDNN_CUDA_LAUNCHED("pooling forward");
}

}  // namespace

}  // namespace anydnn::cuda
