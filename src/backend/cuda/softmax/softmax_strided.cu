// SoftmaxStrided (CUDA): any strides, each tensor its own (softmax::GroupWalk addresses every
// element); the fallback. The kernels are softmax_kernels.cuh's.
#include "backend/cuda/softmax/softmax_kernels.cuh"
#include "softmax/softmax_registry.hpp"
#include "softmax/softmax_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class SoftmaxStrided final : public SoftmaxStridedSpec {
 public:
  void run(const ExecutionContext& ctx, const SoftmaxProblem& p,
           const SoftmaxBuffers& b) const override {
    const softmax_kernels::StridedAddr addr{softmax::group_walk(p),
                                            {p.in_strides(), p.out_strides(), p.grad_strides()}};
    softmax_kernels::launch(backend_of(ctx), p, b, addr);
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<SoftmaxSolver> make_softmax_strided<BackendKind::Cuda>() {
  return std::make_unique<cuda::SoftmaxStrided>();
}

}  // namespace anydnn
