// The LRN solvers in priority order: the first applicable one runs. One list for every backend
// (each has the same solvers, with the same ids and names); each solver's factory is specialised
// by the backend's file (backend/cpu/lrn/<name>.cpp, backend/cuda/lrn/<name>.cu). Ids are
// stable: never renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "lrn/lrn_solver.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(LrnSolver, make_lrn_cross_channel);
ANYDNN_SOLVER_FACTORY(LrnSolver, make_lrn_within_channel);

template <BackendKind K>
LrnSolverRegistry make_lrn_registry() {
  std::vector<LrnSolverEntry> list;
  list.push_back({1, make_lrn_cross_channel<K>()});
  list.push_back({2, make_lrn_within_channel<K>()});
  return LrnSolverRegistry(std::move(list));
}

}  // namespace anydnn
