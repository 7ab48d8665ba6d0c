#include "activation/activation_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const ActivationSolverEntry& select_activation_solver(Handle& handle, const ActivationProblem& p) {
  return select_first_applicable(handle.backend().solvers<ActivationSolver>(), handle.context(), p,
                                 "activation");
}

void activation_run(Handle& handle, const ActivationProblem& p, const ActivationBuffers& buffers) {
  const ActivationSolverEntry& e = select_activation_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "activation " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

std::vector<const ActivationSolverEntry*> activation_solvers_for(Handle& handle,
                                                                 const ActivationProblem& p) {
  return applicable_solvers(handle.backend().solvers<ActivationSolver>(), handle.context(), p);
}

void activation_run_solver(Handle& handle, const ActivationProblem& p, uint64_t solver_id,
                           const ActivationBuffers& buffers) {
  const ExecutionContext ctx = handle.context();
  const ActivationSolverEntry& e = applicable_solver(handle.backend().solvers<ActivationSolver>(),
                                                     ctx, p, solver_id, "activation");
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
