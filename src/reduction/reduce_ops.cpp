#include "reduction/reduce_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/registry.hpp"

namespace anydnn {

const ReduceSolverEntry& select_reduce_solver(Handle& handle, const ReduceProblem& p) {
  const ExecutionContext ctx = handle.context();
  const ReduceSolverEntry* fallback = nullptr;
  std::string reasons;
  for (const auto& e : handle.backend().reduce_solvers().entries()) {
    const Applicability a = e.solver->applicable(ctx, p);
    if (!a) {
      ANYDNN_LOG_I2(handle.config(), e.solver->name() << " not applicable: " << a.reason);
      reasons += std::string(reasons.empty() ? "" : "; ") + std::string(e.solver->name()) + ": " +
                 a.reason;
      continue;
    }
    if (!e.solver->fallback_only()) return e;
    if (fallback == nullptr) fallback = &e;
  }
  ANYDNN_CHECK(fallback != nullptr, miopenStatusNotImplemented,
               "no reduction solver for "
                   << p.key() << " (" << (reasons.empty() ? "none registered" : reasons) << ")");
  return *fallback;
}

void reduce_run(Handle& handle, const ReduceProblem& p, const ReduceBuffers& buffers) {
  if (p.plan().out_count == 0 || p.plan().red_count == 0) return;
  const ReduceSolverEntry& e = select_reduce_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "reduction " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(
      handle.backend().run_timed([&] { e.solver->run(ctx, p.plan(), buffers); }));
}

}  // namespace anydnn
