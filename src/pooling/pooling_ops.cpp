#include "pooling/pooling_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace anydnn {

const PoolingSolverEntry& select_pooling_solver(Handle& handle, const PoolingProblem& p) {
  const ExecutionContext ctx = handle.context();
  const PoolingSolverEntry* fallback = nullptr;
  std::string reasons;
  for (const auto& e : handle.backend().pooling_solvers().entries()) {
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
               "no pooling solver for " << p.key() << " ("
                                        << (reasons.empty() ? "none registered" : reasons) << ")");
  return *fallback;
}

void pooling_run(Handle& handle, const PoolingProblem& p, const PoolingBuffers& buffers) {
  const PoolingSolverEntry& e = select_pooling_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "pooling " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.backend().run_timed([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
