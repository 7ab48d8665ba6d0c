#include "lrn/lrn_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const LrnSolverEntry& select_lrn_solver(Handle& handle, const LrnProblem& p) {
  return select_first_applicable(handle.backend().solvers<LrnSolver>(), handle.context(), p, "LRN");
}

void lrn_run(Handle& handle, const LrnProblem& p, const LrnBuffers& buffers) {
  const LrnSolverEntry& e = select_lrn_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "lrn " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
