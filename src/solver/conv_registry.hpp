// An ordered list of convolution solvers with their stable ids. Order is priority: when
// several solvers have no timing (immediate mode without a find-db record) the earlier wins.
// Each backend has exactly one registry file that builds its list (backend/*/conv_registry.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "solver/conv_solver.hpp"

namespace anydnn {

struct ConvSolverEntry {
  uint64_t id;  // stable, never reused; 0 is invalid
  std::unique_ptr<ConvSolver> solver;
};

class ConvSolverRegistry {
 public:
  // Throws InternalError on duplicate ids or names (a programming error in a registry file).
  explicit ConvSolverRegistry(std::vector<ConvSolverEntry> entries);

  const std::vector<ConvSolverEntry>& entries() const { return entries_; }
  const ConvSolverEntry* find(uint64_t id) const;
  const ConvSolverEntry* find(std::string_view name) const;

 private:
  std::vector<ConvSolverEntry> entries_;
};

}  // namespace anydnn
