// Backend-agnostic tensor-op front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "handle/handle.hpp"
#include "tensor_ops/tensor_op_problem.hpp"
#include "tensor_ops/tensor_op_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const TensorOpSolverEntry& select_tensor_op_solver(Handle& handle, const TensorOpProblem& p);

// Runs the call; an int8 channel-padding transform zeroes the output first (a SetTensor of 0).
void tensor_op_run(Handle& handle, const TensorOpProblem& p, const TensorOpBuffers& buffers);

}  // namespace anydnn
