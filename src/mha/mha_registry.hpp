// The multi-head-attention solvers in priority order. One list for every backend (each has the
// same solvers, with the same ids and names); each solver's factory is specialised by the
// backend's file (backend/cpu/mha/<name>.cpp, backend/cuda/mha/<name>.cu). Adding a solver = its
// spec (mha_solver_specs.hpp) and kernels, one factory line and one list line here with a new
// id. Ids are stable (Find 2.0 solutions keep them): never renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "mha/mha_solver.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(MhaSolver, make_mha_forward);
ANYDNN_SOLVER_FACTORY(MhaSolver, make_mha_backward);
ANYDNN_SOLVER_FACTORY(MhaSolver, make_mha_naive_forward);
ANYDNN_SOLVER_FACTORY(MhaSolver, make_mha_naive_backward);

template <BackendKind K>
MhaSolverRegistry make_mha_registry() {
  std::vector<MhaSolverEntry> list;
  list.push_back({1, make_mha_forward<K>()});
  list.push_back({2, make_mha_backward<K>()});
  list.push_back({3, make_mha_naive_forward<K>()});
  list.push_back({4, make_mha_naive_backward<K>()});
  return MhaSolverRegistry(std::move(list));
}

}  // namespace anydnn
