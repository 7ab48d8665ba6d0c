// The reduction solvers in priority order: the first applicable one runs. One list for every
// backend (each has the same solvers, with the same ids and names); each solver's factory is
// specialised by the backend's file (backend/cpu/reduction/<name>.cpp,
// backend/cuda/reduction/<name>.cu). Ids are stable: never renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "solver/reduce_solver.hpp"

namespace anydnn {

// Declares factory `f` for every backend: each backend defines its specialisation.
#define ANYDNN_REDUCE_SOLVER_FACTORY(f)                \
  template <BackendKind K>                             \
  std::unique_ptr<ReduceSolver> f();                   \
  template <>                                          \
  std::unique_ptr<ReduceSolver> f<BackendKind::Cpu>(); \
  template <>                                          \
  std::unique_ptr<ReduceSolver> f<BackendKind::Cuda>()

ANYDNN_REDUCE_SOLVER_FACTORY(make_reduce_rows);
ANYDNN_REDUCE_SOLVER_FACTORY(make_reduce_columns);
ANYDNN_REDUCE_SOLVER_FACTORY(make_reduce_strided);

template <BackendKind K>
ReduceSolverRegistry make_reduce_registry() {
  std::vector<ReduceSolverEntry> list;
  list.push_back({1, make_reduce_rows<K>()});
  list.push_back({2, make_reduce_columns<K>()});
  list.push_back({3, make_reduce_strided<K>()});
  return ReduceSolverRegistry(std::move(list));
}

}  // namespace anydnn
