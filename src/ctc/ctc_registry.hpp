// The CTC loss solvers in priority order: the first applicable one runs. One list for every
// backend (same ids and names); each solver's factory is specialised by the backend's file
// (backend/cpu/ctc/<name>.cpp, backend/cuda/ctc/<name>.cu). Ids are stable: never renumber or
// reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "ctc/ctc_solver.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(CtcLossSolver, make_ctc_loss_alpha_beta);

template <BackendKind K>
CtcLossSolverRegistry make_ctc_loss_registry() {
  std::vector<CtcLossSolverEntry> list;
  list.push_back({1, make_ctc_loss_alpha_beta<K>()});
  return CtcLossSolverRegistry(std::move(list));
}

}  // namespace anydnn
