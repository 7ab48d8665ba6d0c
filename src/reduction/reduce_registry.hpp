// The reduction solvers in priority order: the first applicable one runs. One list for every
// backend (each has the same solvers, with the same ids and names); each solver's factory is
// specialised by the backend's file (backend/cpu/reduction/<name>.cpp,
// backend/cuda/reduction/<name>.cu). Adding a solver = its spec (reduce_solver_specs.hpp) and
// kernels, one factory line and one list line here with a new id. Ids are stable: never
// renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "reduction/reduce_solver.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(ReduceSolver, make_reduce_rows);
ANYDNN_SOLVER_FACTORY(ReduceSolver, make_reduce_columns);
ANYDNN_SOLVER_FACTORY(ReduceSolver, make_reduce_strided);

template <BackendKind K>
ReduceSolverRegistry make_reduce_registry() {
  std::vector<ReduceSolverEntry> list;
  list.push_back({1, make_reduce_rows<K>()});
  list.push_back({2, make_reduce_columns<K>()});
  list.push_back({3, make_reduce_strided<K>()});
  return ReduceSolverRegistry(std::move(list));
}

}  // namespace anydnn
