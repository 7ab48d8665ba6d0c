// The activation solvers in priority order: the first applicable one runs. One list for every
// backend (each has the same solvers, with the same ids and names); each solver's factory is
// specialised by the backend's file (backend/cpu/activation/<name>.cpp,
// backend/cuda/activation/<name>.cu). Adding a solver = its spec (activation_solver_specs.hpp)
// and kernels, one factory line and one list line here with a new id. Ids are stable: never
// renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "activation/activation_solver.hpp"
#include "core/config.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(ActivationSolver, make_activ_packed);
ANYDNN_SOLVER_FACTORY(ActivationSolver, make_activ_strided);

template <BackendKind K>
ActivationSolverRegistry make_activation_registry() {
  std::vector<ActivationSolverEntry> list;
  list.push_back({1, make_activ_packed<K>()});
  list.push_back({2, make_activ_strided<K>()});
  return ActivationSolverRegistry(std::move(list));
}

}  // namespace anydnn
