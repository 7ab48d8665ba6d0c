// The softmax solvers in priority order: the first applicable one runs. One list for every
// backend (each has the same solvers, with the same ids and names); each solver's factory is
// specialised by the backend's file (backend/cpu/softmax/<name>.cpp,
// backend/cuda/softmax/<name>.cu). Adding a solver = its spec (softmax_solver_specs.hpp)
// and kernels, one factory line and one list line here with a new id. Ids are stable: never
// renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "softmax/softmax_solver.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(SoftmaxSolver, make_softmax_packed);
ANYDNN_SOLVER_FACTORY(SoftmaxSolver, make_softmax_strided);

template <BackendKind K>
SoftmaxSolverRegistry make_softmax_registry() {
  std::vector<SoftmaxSolverEntry> list;
  list.push_back({1, make_softmax_packed<K>()});
  list.push_back({2, make_softmax_strided<K>()});
  return SoftmaxSolverRegistry(std::move(list));
}

}  // namespace anydnn
