// TensorOpRows (CPU): rows that are unit-stride in every tensor, outer dimensions any strides.
// Threads take contiguous blocks of rows; a call with fewer rows than threads (a few long rows)
// splits each row's columns instead, so both shapes use every thread.
#include "backend/cpu/tensor_ops/tensor_op_loops.hpp"
#include "tensor_ops/tensor_op_registry.hpp"
#include "tensor_ops/tensor_op_solver_specs.hpp"

namespace anydnn {
template <>
std::unique_ptr<TensorOpSolver> make_tensor_op_rows<BackendKind::Cpu>() {
  return std::make_unique<cpu::TensorOpLoopSolver<TensorOpRowsSpec, true>>();
}
}  // namespace anydnn
