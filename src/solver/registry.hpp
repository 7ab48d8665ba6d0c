// The ordered list of one primitive family's solvers with their stable ids, for every family
// (SolverRegistry<ConvSolver>, SolverRegistry<BnSolver>, ...). Order is priority: where nothing
// else decides, the earlier solver wins. A family's list is built in one registry file (conv:
// backend/*/conv_registry.cpp; bn: bn/bn_registry.hpp; activation:
// activation/activation_registry.hpp); the solver type only needs name() and a static
// kRegistryLabel naming the family in the start-up check's message.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/errors.hpp"

namespace anydnn {

template <class Solver>
struct SolverEntry {
  uint64_t id;  // stable, never reused; 0 is invalid
  std::unique_ptr<Solver> solver;
};

template <class Solver>
class SolverRegistry {
 public:
  using Entry = SolverEntry<Solver>;

  // Throws InternalError on duplicate ids or names (a programming error in a registry file).
  explicit SolverRegistry(std::vector<Entry> entries) : entries_(std::move(entries)) {
    std::set<uint64_t> ids;
    std::set<std::string> names;
    for (const auto& e : entries_) {
      ANYDNN_CHECK(e.id != 0 && ids.insert(e.id).second, miopenStatusInternalError,
                   Solver::kRegistryLabel << " id " << e.id << " is invalid or used twice");
      ANYDNN_CHECK(names.insert(std::string(e.solver->name())).second, miopenStatusInternalError,
                   Solver::kRegistryLabel << " name " << e.solver->name() << " is used twice");
    }
  }

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(uint64_t id) const {
    for (const auto& e : entries_)
      if (e.id == id) return &e;
    return nullptr;
  }
  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.solver->name() == name) return &e;
    return nullptr;
  }

 private:
  std::vector<Entry> entries_;
};

// Declares the factory `f` of a `Solver` for every backend, for a family whose solvers both
// backends have (one registry list in the family's folder): the primary template is never
// defined, each backend's solver file defines its specialisation (in namespace anydnn).
#define ANYDNN_SOLVER_FACTORY(Solver, f)         \
  template <BackendKind K>                       \
  std::unique_ptr<Solver> f();                   \
  template <>                                    \
  std::unique_ptr<Solver> f<BackendKind::Cpu>(); \
  template <>                                    \
  std::unique_ptr<Solver> f<BackendKind::Cuda>()

}  // namespace anydnn
