// Backend-agnostic reduction front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "handle/handle.hpp"
#include "reduction/reduce_problem.hpp"
#include "reduction/reduce_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const ReduceSolverEntry& select_reduce_solver(Handle& handle, const ReduceProblem& p);

void reduce_run(Handle& handle, const ReduceProblem& p, const ReduceBuffers& buffers);

}  // namespace anydnn
