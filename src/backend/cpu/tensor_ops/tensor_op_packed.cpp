// TensorOpPacked (CPU): the plan is one unit-stride run; it is split into equal contiguous
// chunks, one per thread, each a vectorisable loop (tensor_op_loops.cpp).
#include "backend/cpu/tensor_ops/tensor_op_loops.hpp"
#include "tensor_ops/tensor_op_registry.hpp"
#include "tensor_ops/tensor_op_solver_specs.hpp"

namespace anydnn {
template <>
std::unique_ptr<TensorOpSolver> make_tensor_op_packed<BackendKind::Cpu>() {
  return std::make_unique<cpu::TensorOpLoopSolver<TensorOpPackedSpec, true>>();
}
}  // namespace anydnn
