// Backend-agnostic LRN front-end: picks the first applicable solver of the handle's backend
// (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "handle/handle.hpp"
#include "lrn/lrn_problem.hpp"
#include "lrn/lrn_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const LrnSolverEntry& select_lrn_solver(Handle& handle, const LrnProblem& p);

void lrn_run(Handle& handle, const LrnProblem& p, const LrnBuffers& buffers);

}  // namespace anydnn
