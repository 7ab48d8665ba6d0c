// Backend-agnostic softmax front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include <cstdint>
#include <vector>

#include "handle/handle.hpp"
#include "softmax/softmax_problem.hpp"
#include "softmax/softmax_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const SoftmaxSolverEntry& select_softmax_solver(Handle& handle, const SoftmaxProblem& p);

void softmax_run(Handle& handle, const SoftmaxProblem& p, const SoftmaxBuffers& buffers);

// Find 2.0's view: every applicable solver (registry order, fallbacks only when nothing else
// applies), and a run of one of them by id (BadParm when it is not there or does not apply).
std::vector<const SoftmaxSolverEntry*> softmax_solvers_for(Handle& handle, const SoftmaxProblem& p);
void softmax_run_solver(Handle& handle, const SoftmaxProblem& p, uint64_t solver_id,
                        const SoftmaxBuffers& buffers);

}  // namespace anydnn
