// The batch-normalization solvers in priority order: the first applicable one runs. One list for
// every backend (each has the same solvers, with the same ids and names); each solver's factory
// is specialised by the backend's file (backend/cpu/bn/<name>.cpp, backend/cuda/bn/<name>.cu).
// Adding a solver = its spec (bn_solver_specs.hpp) and kernels, one factory line and one list
// line here with a new id. Ids are stable: never renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "bn/bn_solver.hpp"
#include "core/config.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(BnSolver, make_bn_spatial_channel_major);
ANYDNN_SOLVER_FACTORY(BnSolver, make_bn_spatial_channel_last);
ANYDNN_SOLVER_FACTORY(BnSolver, make_bn_per_activation);
ANYDNN_SOLVER_FACTORY(BnSolver, make_bn_strided);

template <BackendKind K>
BnSolverRegistry make_bn_registry() {
  std::vector<BnSolverEntry> list;
  list.push_back({1, make_bn_spatial_channel_major<K>()});
  list.push_back({2, make_bn_spatial_channel_last<K>()});
  list.push_back({3, make_bn_per_activation<K>()});
  list.push_back({4, make_bn_strided<K>()});
  return BnSolverRegistry(std::move(list));
}

}  // namespace anydnn
