// Backend-agnostic softmax front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "handle/handle.hpp"
#include "problem/softmax_problem.hpp"
#include "solver/softmax_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const SoftmaxSolverEntry& select_softmax_solver(Handle& handle, const SoftmaxProblem& p);

void softmax_run(Handle& handle, const SoftmaxProblem& p, const SoftmaxBuffers& buffers);

}  // namespace anydnn
