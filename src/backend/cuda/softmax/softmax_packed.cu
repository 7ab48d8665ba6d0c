// SoftmaxPacked (CUDA): every tensor packed NCHW, so an element's address is plain arithmetic
// on (image, element, pixel); the kernels are softmax_kernels.cuh's.
#include "backend/cuda/softmax/softmax_kernels.cuh"
#include "softmax/softmax_registry.hpp"
#include "softmax/softmax_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class SoftmaxPacked final : public SoftmaxPackedSpec {
 public:
  void run(const ExecutionContext& ctx, const SoftmaxProblem& p,
           const SoftmaxBuffers& b) const override {
    softmax_kernels::launch(backend_of(ctx), p, b,
                            softmax_kernels::PackedAddr{p.inner(), p.vector()});
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<SoftmaxSolver> make_softmax_packed<BackendKind::Cuda>() {
  return std::make_unique<cuda::SoftmaxPacked>();
}

}  // namespace anydnn
