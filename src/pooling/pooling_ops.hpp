// Backend-agnostic pooling front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "handle/handle.hpp"
#include "pooling/pooling_problem.hpp"
#include "pooling/pooling_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const PoolingSolverEntry& select_pooling_solver(Handle& handle, const PoolingProblem& p);

void pooling_run(Handle& handle, const PoolingProblem& p, const PoolingBuffers& buffers);

}  // namespace anydnn
