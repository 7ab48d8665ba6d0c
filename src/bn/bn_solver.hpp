// The contract every batch-normalization solver implements (docs/adding-a-solver.md): a name,
// applicability with a reason, and a run on concrete buffers. BN needs no workspace and no
// tuning, so there is no Find: the front-end (bn/bn_ops.cpp) runs the first applicable solver
// of the backend's ordered registry (bn/bn_registry.hpp).
#pragma once

#include <string_view>

#include "activation/fused_epilogue.hpp"
#include "bn/bn_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The buffers of one call by role. Null optional pointers follow MIOpen: a pair is used only
// when both of its pointers are set (the BnProblem's save()/running() flags say which are).
struct BnBuffers {
  const void* x = nullptr;
  void* y = nullptr;         // forward output
  const void* dy = nullptr;  // backward input
  void* dx = nullptr;        // backward output
  const void* scale = nullptr;
  const void* bias = nullptr;  // forward; backward too with an activation (to recompute bn(x))
  // Forward training: running mean / variance (read and updated). Inference: the estimates.
  void* run_mean = nullptr;
  void* run_var = nullptr;
  // Forward training: written. Backward: read.
  void* saved_mean = nullptr;
  void* saved_invstd = nullptr;
  void* dscale = nullptr;  // backward outputs
  void* dbias = nullptr;
  // y = alpha * bn(x) + beta * y; dx likewise; dscale/dbias with the param factors.
  float alpha = 1.0f, beta = 0.0f, alpha_param = 1.0f, beta_param = 0.0f;
  // Fused activation (activation/fused_epilogue.hpp): forward y = alpha * act(bn(x)) + beta * y;
  // backward runs on act'(dy) at bn(x), recomputed from the saved statistics and scale / bias.
  // Set only by the fusion front-end, only for a solver whose activation_support() said yes.
  const FusedActivation* activation = nullptr;
};

class BnSolver : public RunSolver<BnProblem, BnBuffers> {
 public:
  static constexpr std::string_view kRegistryLabel = "bn solver";  // registry.hpp
  // Whether run() applies a fused activation of this mode (BnBuffers::activation) to a problem
  // it is applicable to. Backward needs the saved statistics (p.save()). Default: no.
  virtual Applicability activation_support(const ExecutionContext& /*ctx*/, const BnProblem& /*p*/,
                                           miopenActivationMode_t /*mode*/) const {
    return Applicability::no("no fused activation");
  }
};

// Ordered: the first applicable solver runs (bn/bn_registry.hpp).
using BnSolverEntry = SolverEntry<BnSolver>;
using BnSolverRegistry = SolverRegistry<BnSolver>;

}  // namespace anydnn
