// The contract every reduction solver implements (docs/adding-a-solver.md): a name,
// applicability with a reason, and a run on concrete buffers. anydnn's reductions use no
// workspace (the size MIOpen reports is still asked of clients, for compatibility) and no
// tuning, so there is no Find: the front-end (reduction/reduce_ops.cpp) runs the first
// applicable solver of the ordered registry (reduction/reduce_registry.hpp). A solver reads only
// the problem's plan (reduction/reduce_plan.hpp) and the arithmetic of reduction/reduce_math.hpp.
#pragma once

#include <string_view>

#include "reduction/reduce_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The buffers of one call: A, C, and the int32 indices (null unless plan.indices).
struct ReduceBuffers {
  const void* a = nullptr;
  void* c = nullptr;
  int* indices = nullptr;
};

class ReduceSolver : public RunSolver<ReduceProblem, ReduceBuffers, ReducePlan> {
 public:
  static constexpr std::string_view kRegistryLabel = "reduction solver";  // registry.hpp
};

using ReduceSolverEntry = SolverEntry<ReduceSolver>;
using ReduceSolverRegistry = SolverRegistry<ReduceSolver>;

}  // namespace anydnn
