#include "activation/activation_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const ActivationSolverEntry& select_activation_solver(Handle& handle, const ActivationProblem& p) {
  return select_first_applicable(handle.backend().activation_solvers(), handle.context(), p,
                                 "activation");
}

void activation_run(Handle& handle, const ActivationProblem& p, const ActivationBuffers& buffers) {
  const ActivationSolverEntry& e = select_activation_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "activation " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
