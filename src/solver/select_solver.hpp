// The selection rule of every family that runs the first applicable solver of its registry
// (batch norm, activation, softmax, tensor ops, reduction, LRN, pooling, CTC, and the fusion
// plans): the first applicable solver that is not fallback-only, else the first applicable
// fallback. Each rejection is logged at Info2 with its reason; when nothing applies the call
// fails with every reason.
// Convolution has its own selection (Find, immediate mode, the find-db) in conv/conv_ops.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The first applicable entry of `registry` that is not fallback-only, else the first applicable
// fallback; nullptr when none applies. Each rejection is logged at Info2 and appended to
// `reasons` ("name: reason; ..."). `also(solver)` may add a condition of the caller's (the fused
// activation a BN solver must support); a rejection there counts like applicable()'s.
struct NoExtraCondition {
  template <class Solver>
  Applicability operator()(const Solver&) const {
    return Applicability::yes();
  }
};
template <class Solver, class Problem, class Also = NoExtraCondition>
const SolverEntry<Solver>* first_applicable(const SolverRegistry<Solver>& registry,
                                            const ExecutionContext& ctx, const Problem& p,
                                            std::string& reasons, Also also = {}) {
  const SolverEntry<Solver>* fallback = nullptr;
  for (const auto& e : registry.entries()) {
    Applicability a = e.solver->applicable(ctx, p);
    if (a) a = also(*e.solver);
    if (!a) {
      ANYDNN_LOG_I2(ctx.config, e.solver->name() << " not applicable: " << a.reason);
      reasons += std::string(reasons.empty() ? "" : "; ") + std::string(e.solver->name()) + ": " +
                 a.reason;
      continue;
    }
    if (!e.solver->fallback_only()) return &e;
    if (fallback == nullptr) fallback = &e;
  }
  return fallback;
}

// The same, failing with NotImplemented and every reason when nothing applies; `family` names
// the family in the error ("batch-normalization", "activation", ...).
template <class Solver, class Problem>
const SolverEntry<Solver>& select_first_applicable(const SolverRegistry<Solver>& registry,
                                                   const ExecutionContext& ctx, const Problem& p,
                                                   std::string_view family) {
  std::string reasons;
  const SolverEntry<Solver>* e = first_applicable(registry, ctx, p, reasons);
  ANYDNN_CHECK(e != nullptr, miopenStatusNotImplemented,
               "no " << family << " solver for " << p.key() << " ("
                     << (reasons.empty() ? "none registered" : reasons) << ")");
  return *e;
}

// Every applicable solver in registry order, the fallback-only ones only when no other applies:
// the choices Find 2.0 offers (miopenFindSolutions) for a family that otherwise runs the first.
// Rejections are logged at Info2.
template <class Solver, class Problem>
std::vector<const SolverEntry<Solver>*> applicable_solvers(const SolverRegistry<Solver>& registry,
                                                           const ExecutionContext& ctx,
                                                           const Problem& p) {
  std::vector<const SolverEntry<Solver>*> regular, fallback;
  for (const auto& e : registry.entries()) {
    const Applicability a = e.solver->applicable(ctx, p);
    if (!a) {
      ANYDNN_LOG_I2(ctx.config, e.solver->name() << " not applicable: " << a.reason);
      continue;
    }
    (e.solver->fallback_only() ? fallback : regular).push_back(&e);
  }
  return regular.empty() ? fallback : regular;
}

// Registry entry `id`, which must apply to the problem (a solution chosen earlier, e.g. one
// loaded from a Find 2.0 blob): BadParm naming the solver and the reason otherwise.
template <class Solver, class Problem>
const SolverEntry<Solver>& applicable_solver(const SolverRegistry<Solver>& registry,
                                             const ExecutionContext& ctx, const Problem& p,
                                             uint64_t id, std::string_view family) {
  const SolverEntry<Solver>* e = registry.find(id);
  ANYDNN_CHECK_BADPARM(e != nullptr, family << " solver id " << id << " is not a solver of this "
                                            << "backend");
  const Applicability a = e->solver->applicable(ctx, p);
  ANYDNN_CHECK_BADPARM(a.ok, family << " solver " << id << " (" << e->solver->name()
                                    << ") does not apply to " << p.key() << ": " << a.reason);
  return *e;
}

}  // namespace anydnn
