#include "softmax/softmax_ops.hpp"

#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace anydnn {

const SoftmaxSolverEntry& select_softmax_solver(Handle& handle, const SoftmaxProblem& p) {
  const ExecutionContext ctx = handle.context();
  const SoftmaxSolverEntry* fallback = nullptr;
  std::string reasons;
  for (const auto& e : handle.backend().softmax_solvers().entries()) {
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
               "no softmax solver for " << p.key() << " ("
                                        << (reasons.empty() ? "none registered" : reasons) << ")");
  return *fallback;
}

void softmax_run(Handle& handle, const SoftmaxProblem& p, const SoftmaxBuffers& buffers) {
  const SoftmaxSolverEntry& e = select_softmax_solver(handle, p);
  ANYDNN_LOG_I2(handle.config(), "softmax " << p.key() << ": " << e.solver->name());
  const ExecutionContext ctx = handle.context();
  handle.record_kernel_time(handle.backend().run_timed([&] { e.solver->run(ctx, p, buffers); }));
}

}  // namespace anydnn
