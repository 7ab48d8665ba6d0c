#include "activation/activation_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace anydnn {

const ActivationSolverEntry& select_activation_solver(Handle& handle, const ActivationProblem& p) {
  const ExecutionContext ctx = handle.context();
  const ActivationSolverEntry* fallback = nullptr;
  std::string reasons;
  for (const auto& e : handle.backend().activation_solvers().entries()) {
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
               "no activation solver for "
                   << p.key() << " (" << (reasons.empty() ? "none registered" : reasons) << ")");
  return *fallback;
}

void activation_run(Handle& handle, const ActivationProblem& p, const ActivationBuffers& buffers) {
  const ActivationSolverEntry& e = select_activation_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "activation " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.backend().run_timed([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
