// Backend-agnostic batch-normalization front-end: picks the first applicable solver of the
// handle's backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include <cstdint>
#include <vector>

#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"
#include "handle/handle.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const BnSolverEntry& select_bn_solver(Handle& handle, const BnProblem& p);

void bn_run(Handle& handle, const BnProblem& p, const BnBuffers& buffers);

// Find 2.0's view: every applicable solver (registry order, fallbacks only when nothing else
// applies), and a run of one of them by id (BadParm when it is not there or does not apply).
std::vector<const BnSolverEntry*> bn_solvers_for(Handle& handle, const BnProblem& p);
void bn_run_solver(Handle& handle, const BnProblem& p, uint64_t solver_id,
                   const BnBuffers& buffers);

}  // namespace anydnn
