#include "softmax/softmax_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const SoftmaxSolverEntry& select_softmax_solver(Handle& handle, const SoftmaxProblem& p) {
  return select_first_applicable(handle.backend().solvers<SoftmaxSolver>(), handle.context(), p,
                                 "softmax");
}

void softmax_run(Handle& handle, const SoftmaxProblem& p, const SoftmaxBuffers& buffers) {
  const SoftmaxSolverEntry& e = select_softmax_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "softmax " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

std::vector<const SoftmaxSolverEntry*> softmax_solvers_for(Handle& handle,
                                                           const SoftmaxProblem& p) {
  return applicable_solvers(handle.backend().solvers<SoftmaxSolver>(), handle.context(), p);
}

void softmax_run_solver(Handle& handle, const SoftmaxProblem& p, uint64_t solver_id,
                        const SoftmaxBuffers& buffers) {
  const ExecutionContext ctx = handle.context();
  const SoftmaxSolverEntry& e =
      applicable_solver(handle.backend().solvers<SoftmaxSolver>(), ctx, p, solver_id, "softmax");
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
