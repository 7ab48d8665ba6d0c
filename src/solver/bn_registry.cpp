#include <set>
#include <string>

#include "core/errors.hpp"
#include "solver/bn_solver.hpp"

namespace anydnn {

BnSolverRegistry::BnSolverRegistry(std::vector<BnSolverEntry> entries)
    : entries_(std::move(entries)) {
  std::set<uint64_t> ids;
  std::set<std::string> names;
  for (const auto& e : entries_) {
    ANYDNN_CHECK(e.id != 0 && ids.insert(e.id).second, miopenStatusInternalError,
                 "bn solver id " << e.id << " is invalid or used twice");
    ANYDNN_CHECK(names.insert(std::string(e.solver->name())).second, miopenStatusInternalError,
                 "bn solver name " << e.solver->name() << " is used twice");
  }
}

const BnSolverEntry* BnSolverRegistry::find(std::string_view name) const {
  for (const auto& e : entries_)
    if (e.solver->name() == name) return &e;
  return nullptr;
}

}  // namespace anydnn
