// PoolBwdDirect (CUDA): one thread per input element (grid-stride), gathering from the outputs
// whose windows cover it (pooling_math.hpp; 2-D problems: pool_2d_kernels.cuh, 32-bit indices):
// every dx element is written once, with no atomics, so reruns give identical bytes.
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/pooling/pool_2d_kernels.cuh"
#include "backend/cuda/pooling/pool_cuda_util.cuh"
#include "pooling/pooling_registry.hpp"
#include "pooling/pooling_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

template <class T>
__global__ void __launch_bounds__(pool_util::kBlock)
    pool_backward(pool::PoolGeometry g, const T* dy, T* dx, const void* ws, float alpha,
                  float beta) {
  const long long count = g.in_count();
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long r = e;
    const long long iw = r % g.in[2];
    r /= g.in[2];
    const long long ih = r % g.in[1];
    r /= g.in[1];
    const long long id = r % g.in[0];
    const long long nc = r / g.in[0], c = nc % g.c, n = nc / g.c;
    const long long i[3] = {id, ih, iw};
    const float v = pool::pool_backward_point(g, dy + n * g.ys[0] + c * g.ys[1], ws, nc, i,
                                              pool_util::Loader<T>{});
    pool_util::blend(dx + n * g.xs[0] + c * g.xs[1] + id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4], v,
                     alpha, beta);
  }
}

class PoolBwdDirect final : public PoolBwdDirectSpec {
 public:
  void run(const ExecutionContext& ctx, const PoolingProblem& p,
           const PoolingBuffers& b) const override {
    CudaBackend& be = backend_of(ctx);
    const pool::PoolGeometry& g = p.geometry();
    const unsigned grid = pool_util::grid_for(be, g.in_count());
    cudaStream_t s = be.cuda_stream();
    pool2d::Geometry q;
    const bool two_d = pool2d::make(g, q);
    // Channels-last dx (unit channel stride): consecutive threads take consecutive channels, so
    // the dx stores coalesce.
    const bool channels_inner = g.xs[1] == 1 && g.c > 1;
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const T* dy = static_cast<const T*>(b.dy);
      T* dx = static_cast<T*>(b.dx);
      if (two_d && channels_inner) {
        pool2d::backward<T, true>
            <<<grid, pool_util::kBlock, 0, s>>>(q, dy, dx, b.workspace, b.alpha, b.beta);
        return;
      }
      if (two_d) {
        pool2d::backward<T, false>
            <<<grid, pool_util::kBlock, 0, s>>>(q, dy, dx, b.workspace, b.alpha, b.beta);
        return;
      }
      pool_backward<T><<<grid, pool_util::kBlock, 0, s>>>(
          g, static_cast<const T*>(b.dy), static_cast<T*>(b.dx), b.workspace, b.alpha, b.beta);
    });
    ANYDNN_CUDA_LAUNCHED("pooling backward");
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<PoolingSolver> make_pool_bwd_direct<BackendKind::Cuda>() {
  return std::make_unique<cuda::PoolBwdDirect>();
}

}  // namespace anydnn
