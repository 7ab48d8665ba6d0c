// The contract every tensor-op solver implements (docs/adding-a-solver.md): a name,
// applicability with a reason, and a run on concrete buffers. Tensor ops need no workspace and
// no tuning, so there is no Find: the front-end (tensor_ops/tensor_op_ops.cpp) runs the first
// applicable solver of the ordered registry (tensor_ops/tensor_op_registry.hpp). A solver reads
// only the problem's plan (tensor_ops/tensor_op_plan.hpp): broadcasting, layouts and the scalars
// are already resolved there.
#pragma once

#include <string_view>

#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"
#include "tensor_ops/tensor_op_problem.hpp"

namespace anydnn {

// The buffers of one call by role: a = A or x, b = B, c = C or y (read when the plan says so).
struct TensorOpBuffers {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
};

class TensorOpSolver : public RunSolver<TensorOpProblem, TensorOpBuffers, TensorOpPlan> {
 public:
  static constexpr std::string_view kRegistryLabel = "tensor-op solver";  // registry.hpp
};

using TensorOpSolverEntry = SolverEntry<TensorOpSolver>;
using TensorOpSolverRegistry = SolverRegistry<TensorOpSolver>;

}  // namespace anydnn
