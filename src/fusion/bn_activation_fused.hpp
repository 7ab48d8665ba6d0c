// The three BN + activation fusion solvers (bn_fwd_infer_activation_fused.cpp,
// bn_fwd_trg_activation_fused.cpp, bn_bwd_trg_activation_fused.cpp, MIOpen's names) differ only
// in the chain they take: each runs the backend's BN solver with the activation fused into its
// passes (BnBuffers::activation, activation/fused_epilogue.hpp), so x is read and y written once.
#pragma once

#include <string>
#include <string_view>

#include "bn/bn_solver.hpp"
#include "fusion/fusion_solver.hpp"

namespace anydnn {

class BnActivationFused : public FusionSolver {
 public:
  BnActivationFused(std::string_view name, FusionChain chain) : name_(name), chain_(chain) {}
  std::string_view name() const final { return name_; }
  Applicability applicable(const ExecutionContext& ctx, const FusionProblem& p) const final;
  FusionInvoker compile(Handle& handle, const FusionProblem& p) const final;

 private:
  std::string_view name_;
  FusionChain chain_;
};

// The BN solver of the backend's registry that runs `p` with a fused activation of `mode`: the
// first applicable one that takes it (a fallback-only one only when no other does), or null
// with the reasons in `why`.
const BnSolverEntry* bn_solver_with_activation(const ExecutionContext& ctx, const BnProblem& p,
                                               miopenActivationMode_t mode, std::string* why);

}  // namespace anydnn
