// LrnCrossChannel (CUDA): miopenLRNCrossChannel, any strides; the kernel is lrn_kernels.cuh's.
#include "backend/cuda/lrn/lrn_kernels.cuh"
#include "lrn/lrn_registry.hpp"
#include "lrn/lrn_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class LrnCrossChannel final : public LrnCrossChannelSpec {
 public:
  void run(const ExecutionContext& ctx, const LrnProblem& p, const LrnBuffers& b) const override {
    lrn_kernels::launch<true>(backend_of(ctx), p, b);
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<LrnSolver> make_lrn_cross_channel<BackendKind::Cuda>() {
  return std::make_unique<cuda::LrnCrossChannel>();
}

}  // namespace anydnn
