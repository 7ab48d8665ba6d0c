// The selection rule of every family that runs the first applicable solver of its registry
// (batch norm, activation, tensor ops): the first applicable solver that is not fallback-only,
// else the first applicable fallback. Each rejection is logged at Info2 with its reason; when
// nothing applies the call fails with NotImplemented and every reason. Convolution has its own
// selection (Find, immediate mode, the find-db) in conv/conv_ops.cpp.
#pragma once

#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// `family` names the family in the error ("batch-normalization", "activation", ...).
template <class Solver, class Problem>
const SolverEntry<Solver>& select_first_applicable(const SolverRegistry<Solver>& registry,
                                                   const ExecutionContext& ctx, const Problem& p,
                                                   std::string_view family) {
  const SolverEntry<Solver>* fallback = nullptr;
  std::string reasons;
  for (const auto& e : registry.entries()) {
    const Applicability a = e.solver->applicable(ctx, p);
    if (!a) {
      ANYDNN_LOG_I2(ctx.config, e.solver->name() << " not applicable: " << a.reason);
      reasons += std::string(reasons.empty() ? "" : "; ") + std::string(e.solver->name()) + ": " +
                 a.reason;
      continue;
    }
    if (!e.solver->fallback_only()) return e;
    if (fallback == nullptr) fallback = &e;
  }
  ANYDNN_CHECK(fallback != nullptr, miopenStatusNotImplemented,
               "no " << family << " solver for " << p.key() << " ("
                     << (reasons.empty() ? "none registered" : reasons) << ")");
  return *fallback;
}

}  // namespace anydnn
