#include "bn/bn_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const BnSolverEntry& select_bn_solver(Handle& handle, const BnProblem& p) {
  return select_first_applicable(handle.backend().solvers<BnSolver>(), handle.context(), p,
                                 "batch-normalization");
}

void bn_run(Handle& handle, const BnProblem& p, const BnBuffers& buffers) {
  const BnSolverEntry& e = select_bn_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "batch norm " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

std::vector<const BnSolverEntry*> bn_solvers_for(Handle& handle, const BnProblem& p) {
  return applicable_solvers(handle.backend().solvers<BnSolver>(), handle.context(), p);
}

void bn_run_solver(Handle& handle, const BnProblem& p, uint64_t solver_id,
                   const BnBuffers& buffers) {
  const ExecutionContext ctx = handle.context();
  const BnSolverEntry& e = applicable_solver(handle.backend().solvers<BnSolver>(), ctx, p,
                                             solver_id, "batch-normalization");
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
