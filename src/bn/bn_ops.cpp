#include "bn/bn_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace anydnn {

const BnSolverEntry& select_bn_solver(Handle& handle, const BnProblem& p) {
  const ExecutionContext ctx = handle.context();
  const BnSolverEntry* fallback = nullptr;
  std::string reasons;
  for (const auto& e : handle.backend().bn_solvers().entries()) {
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
               "no batch-normalization solver for "
                   << p.key() << " (" << (reasons.empty() ? "none registered" : reasons) << ")");
  return *fallback;
}

void bn_run(Handle& handle, const BnProblem& p, const BnBuffers& buffers) {
  const BnSolverEntry& e = select_bn_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "batch norm " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.backend().run_timed([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
