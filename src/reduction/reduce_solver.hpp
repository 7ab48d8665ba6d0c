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

class ReduceSolver {
 public:
  static constexpr std::string_view kRegistryLabel = "reduction solver";  // registry.hpp
  virtual ~ReduceSolver() = default;
  virtual std::string_view name() const = 0;
  // A fallback runs only when no other solver applies (it exists for coverage).
  virtual bool fallback_only() const { return false; }
  virtual Applicability applicable(const ExecutionContext& ctx, const ReduceProblem& p) const = 0;
  virtual void run(const ExecutionContext& ctx, const ReducePlan& plan,
                   const ReduceBuffers& b) const = 0;
};

using ReduceSolverEntry = SolverEntry<ReduceSolver>;
using ReduceSolverRegistry = SolverRegistry<ReduceSolver>;

}  // namespace anydnn
