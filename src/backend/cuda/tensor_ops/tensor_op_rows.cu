// TensorOpRows (CUDA): see tensor_op_kernels.hpp, TensorOpWalk::Rows.
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/tensor_ops/tensor_op_kernels.hpp"
#include "tensor_ops/tensor_op_registry.hpp"
#include "tensor_ops/tensor_op_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

class TensorOpRows final : public TensorOpRowsSpec {
 public:
  void run(const ExecutionContext& ctx, const TensorOpPlan& p,
           const TensorOpBuffers& b) const override {
    launch_tensor_op(p, b, TensorOpWalk::Rows, backend_of(ctx).cuda_stream());
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {
template <>
std::unique_ptr<TensorOpSolver> make_tensor_op_rows<BackendKind::Cuda>() {
  return std::make_unique<cuda::TensorOpRows>();
}
}  // namespace anydnn
