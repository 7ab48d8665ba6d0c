// TensorOpRows (CPU): rows that are unit-stride in every tensor, outer dimensions any strides.
// Threads take contiguous blocks of rows; a call with fewer rows than threads (a few long rows)
// splits each row's columns instead, so both shapes use every thread.
#include "backend/cpu/tensor_ops/tensor_op_loops.hpp"
#include "tensor_ops/tensor_op_registry.hpp"
#include "tensor_ops/tensor_op_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class TensorOpRows final : public TensorOpRowsSpec {
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
std::unique_ptr<TensorOpSolver> make_tensor_op_rows<BackendKind::Cpu>() {
  return std::make_unique<cpu::TensorOpRows>();
}
}  // namespace anydnn
