// Backend-agnostic activation front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include <cstdint>
#include <vector>

#include "activation/activation_problem.hpp"
#include "activation/activation_solver.hpp"
#include "handle/handle.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const ActivationSolverEntry& select_activation_solver(Handle& handle, const ActivationProblem& p);

void activation_run(Handle& handle, const ActivationProblem& p, const ActivationBuffers& buffers);

// Find 2.0's view: every applicable solver (registry order, fallbacks only when nothing else
// applies), and a run of one of them by id (BadParm when it is not there or does not apply).
std::vector<const ActivationSolverEntry*> activation_solvers_for(Handle& handle,
                                                                 const ActivationProblem& p);
void activation_run_solver(Handle& handle, const ActivationProblem& p, uint64_t solver_id,
                           const ActivationBuffers& buffers);

}  // namespace anydnn
