// Backend-agnostic CTC loss front-end: picks the first applicable solver of the handle's
// backend (logging each rejection at Info2) and runs it, timed for miopenGetKernelTime.
#pragma once

#include "ctc/ctc_problem.hpp"
#include "ctc/ctc_solver.hpp"
#include "handle/handle.hpp"

namespace anydnn {

const CtcLossSolverEntry& select_ctc_loss_solver(Handle& handle, const CtcLossProblem& p);

void ctc_loss_run(Handle& handle, const CtcLossProblem& p, const CtcLossBuffers& buffers);

}  // namespace anydnn
