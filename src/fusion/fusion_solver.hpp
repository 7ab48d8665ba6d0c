// The contract every fusion solver implements (docs/adding-a-solver.md, "Fusion solvers"): a
// name, applicability with a reason, and compile(), which chooses what runs for one handle (the
// convolution solution, the BN solver) and returns the workspace it needs and the run. Fusion
// solvers are device-independent: they hand the fused work to a convolution solver's epilogue
// or a BN solver's activation (activation/fused_epilogue.hpp), whose kernels are the backend's, so
// one list serves every backend (fusion/fusion_registry.hpp). The front-end
// (fusion/fusion_plan.cpp) picks the first applicable solver when a plan compiles; the last,
// FusionSequence, runs the operators one after the other and applies to every chain.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "fusion/fusion_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

class Handle;

// The arguments of each operator of the chain, by role (null: the chain has no such operator).
struct FusionOpArgsByRole {
  const FusionOpArgs* conv = nullptr;
  const FusionOpArgs* residual = nullptr;  // TensorScaleAdd (z)
  const FusionOpArgs* bias = nullptr;
  const FusionOpArgs* bn = nullptr;
  const FusionOpArgs* activ = nullptr;
};

// One execution: the plan's input and output (for BN backward: dy in, dx out), the operator
// arguments, and the workspace compile() asked for.
struct FusionBuffers {
  const void* in = nullptr;
  void* out = nullptr;
  FusionOpArgsByRole args;
  void* workspace = nullptr;
  size_t workspace_size = 0;
};

// What a solver compiled for one handle. `run` may call the primitives' front-ends on the
// handle (it is the handle the plan was compiled with).
struct FusionInvoker {
  size_t workspace_size = 0;
  std::string detail;  // what it chose, for the log ("conv solution 12 WinogradF4x3Fwd")
  std::function<void(Handle& handle, const FusionBuffers& b)> run;
};

class FusionSolver {
 public:
  static constexpr std::string_view kRegistryLabel = "fusion solver";  // registry.hpp
  virtual ~FusionSolver() = default;
  // Stable name, logged when a plan compiles.
  virtual std::string_view name() const = 0;
  // The sequence: runs only when no fused solver applies.
  virtual bool fallback_only() const { return false; }
  virtual Applicability applicable(const ExecutionContext& ctx, const FusionProblem& p) const = 0;
  // Only called for applicable problems; throws only for what applicability cannot know
  // (a find-db record naming no solver with an epilogue, say: then NotImplemented).
  virtual FusionInvoker compile(Handle& handle, const FusionProblem& p) const = 0;
};

using FusionSolverEntry = SolverEntry<FusionSolver>;
using FusionSolverRegistry = SolverRegistry<FusionSolver>;

}  // namespace anydnn
