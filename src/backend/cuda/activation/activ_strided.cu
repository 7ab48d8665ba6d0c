// ActivStrided (CUDA): any strides. One thread per element (grid-stride over the problem's
// geometry, whose dimensions are already merged wherever the tensors are contiguous): the
// element's index is decomposed over the geometry's lengths once and applied to each tensor's
// strides. Consecutive threads take consecutive inner-dimension elements, so accesses coalesce
// wherever the inner stride is 1 (padded rows, slices of larger tensors).
#include "activation/activation_registry.hpp"
#include "activation/activation_solver_specs.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"

namespace anydnn::cuda {

namespace {

constexpr unsigned kBlock = 256;
constexpr int kX = ActivationProblem::kX, kY = ActivationProblem::kY, kDx = ActivationProblem::kDx,
              kDy = ActivationProblem::kDy;

__device__ inline void offsets(const ActivGeometry& g, long long i,
                               long long (&off)[ActivGeometry::kMaxTensors]) {
  for (int t = 0; t < ActivGeometry::kMaxTensors; ++t)
    off[t] = 0;
  for (int k = g.rank - 1; k >= 0; --k) {
    const long long len = g.lens[k], j = i % len;
    i /= len;
    for (int t = 0; t < g.tensors; ++t)
      off[t] += j * g.strides[t][k];
  }
}

template <miopenActivationMode_t M, class T, bool Prior>
__global__ void __launch_bounds__(kBlock)
    strided_forward(ActivGeometry g, const T* x, T* y, activ::ActivParams p, float alpha,
                    float beta) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < g.count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long off[ActivGeometry::kMaxTensors];
    offsets(g, i, off);
    const float v = activ::forward<M>(load(x[off[kX]]), p);
    y[off[kY]] = store<T>(Prior ? alpha * v + beta * load(y[off[kY]]) : alpha * v);
  }
}

template <miopenActivationMode_t M, class T, bool Prior>
__global__ void __launch_bounds__(kBlock)
    strided_backward(ActivGeometry g, const T* x, const T* y, const T* dy, T* dx,
                     activ::ActivParams p, float alpha, float beta) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < g.count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long off[ActivGeometry::kMaxTensors];
    offsets(g, i, off);
    const float v = activ::backward<M>(load(dy[off[kDy]]), load(x[off[kX]]), load(y[off[kY]]), p);
    dx[off[kDx]] = store<T>(Prior ? alpha * v + beta * load(dx[off[kDx]]) : alpha * v);
  }
}

class ActivStrided final : public ActivStridedSpec {
 public:
  void run(const ExecutionContext& ctx, const ActivationProblem& p,
           const ActivationBuffers& b) const override {
    CudaBackend& be = backend_of(ctx);
    const ActivGeometry& g = p.geometry();
    const long long cap = static_cast<long long>(be.properties().multiProcessorCount) * 16;
    const long long want = (g.count + kBlock - 1) / kBlock;
    const unsigned grid = static_cast<unsigned>(want < cap ? want : cap);
    cudaStream_t s = be.cuda_stream();
    const bool prior = b.beta != 0.0f;
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      activ::dispatch_mode(p.mode(), [&](auto mode) {
        constexpr miopenActivationMode_t M = decltype(mode)::value;
        const T* x = static_cast<const T*>(b.x);
        if (p.forward()) {
          T* y = static_cast<T*>(b.y);
          if (prior)
            strided_forward<M, T, true>
                <<<grid, kBlock, 0, s>>>(g, x, y, p.params(), b.alpha, b.beta);
          else
            strided_forward<M, T, false>
                <<<grid, kBlock, 0, s>>>(g, x, y, p.params(), b.alpha, b.beta);
        } else {
          const T* y = static_cast<const T*>(b.y);
          const T* dy = static_cast<const T*>(b.dy);
          T* dx = static_cast<T*>(b.dx);
          if (prior)
            strided_backward<M, T, true>
                <<<grid, kBlock, 0, s>>>(g, x, y, dy, dx, p.params(), b.alpha, b.beta);
          else
            strided_backward<M, T, false>
                <<<grid, kBlock, 0, s>>>(g, x, y, dy, dx, p.params(), b.alpha, b.beta);
        }
      });
    });
    ANYDNN_CUDA_LAUNCHED("activation (strided)");
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<ActivationSolver> make_activ_strided<BackendKind::Cuda>() {
  return std::make_unique<cuda::ActivStrided>();
}

}  // namespace anydnn
