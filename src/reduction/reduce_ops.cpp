#include "reduction/reduce_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const ReduceSolverEntry& select_reduce_solver(Handle& handle, const ReduceProblem& p) {
  return select_first_applicable(handle.backend().solvers<ReduceSolver>(), handle.context(), p,
                                 "reduction");
}

void reduce_run(Handle& handle, const ReduceProblem& p, const ReduceBuffers& buffers) {
  if (p.plan().out_count == 0 || p.plan().red_count == 0) return;
  const ReduceSolverEntry& e = select_reduce_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "reduction " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p.plan(), buffers); }));
}

}  // namespace anydnn
