// Backend-agnostic batch-normalization front-end: picks the first applicable solver of the
// handle's backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "handle/handle.hpp"
#include "problem/bn_problem.hpp"
#include "solver/bn_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const BnSolverEntry& select_bn_solver(Handle& handle, const BnProblem& p);

void bn_run(Handle& handle, const BnProblem& p, const BnBuffers& buffers);

}  // namespace anydnn
