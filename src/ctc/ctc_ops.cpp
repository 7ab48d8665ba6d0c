#include "ctc/ctc_ops.hpp"

#include "backend/backend.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const CtcLossSolverEntry& select_ctc_loss_solver(Handle& handle, const CtcLossProblem& p) {
  return select_first_applicable(handle.backend().solvers<CtcLossSolver>(), handle.context(), p,
                                 "CTC loss");
}

void ctc_loss_run(Handle& handle, const CtcLossProblem& p, const CtcLossBuffers& buffers) {
  const CtcLossSolverEntry& e = select_ctc_loss_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "CTC loss " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
