// Backend-agnostic activation front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "handle/handle.hpp"
#include "problem/activation_problem.hpp"
#include "solver/activation_solver.hpp"

namespace anydnn {

// The solver that would run (NotImplemented, with every rejection reason, when none applies).
const ActivationSolverEntry& select_activation_solver(Handle& handle, const ActivationProblem& p);

void activation_run(Handle& handle, const ActivationProblem& p, const ActivationBuffers& buffers);

}  // namespace anydnn
