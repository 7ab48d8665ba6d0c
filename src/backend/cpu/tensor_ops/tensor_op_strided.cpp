// TensorOpStrided (CPU): any strides, e.g. an NCHW -> NHWC transform (the plan orders the
// dimensions by the output's strides, so writes are as sequential as the output allows) or B
// broadcast along the innermost dimension. Threads take blocks of rows.
#include "backend/cpu/tensor_ops/tensor_op_loops.hpp"
#include "tensor_ops/tensor_op_registry.hpp"
#include "tensor_ops/tensor_op_solver_specs.hpp"

namespace anydnn {
template <>
std::unique_ptr<TensorOpSolver> make_tensor_op_strided<BackendKind::Cpu>() {
  return std::make_unique<cpu::TensorOpLoopSolver<TensorOpStridedSpec, false>>();
}
}  // namespace anydnn
