#include "pooling/pooling_ops.hpp"

#include "backend/backend.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const PoolingSolverEntry& select_pooling_solver(Handle& handle, const PoolingProblem& p) {
  return select_first_applicable(handle.backend().solvers<PoolingSolver>(), handle.context(), p,
                                 "pooling");
}

void pooling_run(Handle& handle, const PoolingProblem& p, const PoolingBuffers& buffers) {
  const PoolingSolverEntry& e = select_pooling_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "pooling " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
