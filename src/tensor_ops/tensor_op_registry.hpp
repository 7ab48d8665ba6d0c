// The tensor-op solvers in priority order: the first applicable one runs. One list for every
// backend (each has the same solvers, with the same ids and names); each solver's factory is
// specialised by the backend's file (backend/cpu/tensor_ops/<name>.cpp,
// backend/cuda/tensor_ops/<name>.cu). Ids are stable: never renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "solver/registry.hpp"
#include "tensor_ops/tensor_op_solver.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(TensorOpSolver, make_tensor_op_packed);
ANYDNN_SOLVER_FACTORY(TensorOpSolver, make_tensor_op_rows);
ANYDNN_SOLVER_FACTORY(TensorOpSolver, make_tensor_op_strided);

template <BackendKind K>
TensorOpSolverRegistry make_tensor_op_registry() {
  std::vector<TensorOpSolverEntry> list;
  list.push_back({1, make_tensor_op_packed<K>()});
  list.push_back({2, make_tensor_op_rows<K>()});
  list.push_back({3, make_tensor_op_strided<K>()});
  return TensorOpSolverRegistry(std::move(list));
}

}  // namespace anydnn
