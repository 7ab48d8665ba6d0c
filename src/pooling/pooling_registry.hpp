// The pooling solvers in priority order: the first applicable one runs (fallbacks last). One
// list for every backend; each solver's factory is specialised by the backend's file
// (backend/cpu/pooling/<name>.cpp, backend/cuda/pooling/<name>.cu). Ids are stable: never
// renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "pooling/pooling_solver.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(PoolingSolver, make_pool_fwd_channels_last);
ANYDNN_SOLVER_FACTORY(PoolingSolver, make_pool_fwd_direct);
ANYDNN_SOLVER_FACTORY(PoolingSolver, make_pool_bwd_direct);
ANYDNN_SOLVER_FACTORY(PoolingSolver, make_pool_bwd_planes);

template <BackendKind K>
PoolingSolverRegistry make_pooling_registry() {
  std::vector<PoolingSolverEntry> list;
  list.push_back({1, make_pool_fwd_channels_last<K>()});
  list.push_back({2, make_pool_fwd_direct<K>()});
  if constexpr (K == BackendKind::Cpu) list.push_back({4, make_pool_bwd_planes<K>()});
  list.push_back({3, make_pool_bwd_direct<K>()});
  return PoolingSolverRegistry(std::move(list));
}

}  // namespace anydnn
