// TensorOpPacked (CPU): the plan is one unit-stride run; it is split into equal contiguous
// chunks, one per thread, each a vectorisable loop (tensor_op_loops.cpp).
#include "backend/cpu/tensor_ops/tensor_op_loops.hpp"
#include "tensor_ops/tensor_op_registry.hpp"
#include "tensor_ops/tensor_op_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class TensorOpPacked final : public TensorOpPackedSpec {
 public:
  void run(const ExecutionContext& ctx, const TensorOpPlan& p,
           const TensorOpBuffers& b) const override {
    tensor_op_parallel(p, b, tensor_op_threads(p.count, ctx.config.num_threads), true);
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {
template <>
std::unique_ptr<TensorOpSolver> make_tensor_op_packed<BackendKind::Cpu>() {
  return std::make_unique<cpu::TensorOpPacked>();
}
}  // namespace anydnn
