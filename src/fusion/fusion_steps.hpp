// What the fusion solvers share: the per-call values of a chain's steps (the activation's
// parameters, the BN operator's problem and buffers) built from the operators' arguments, so
// that the fused solvers and the sequence read them the same way.
#pragma once

#include <functional>
#include <optional>

#include "activation/activation_problem.hpp"
#include "activation/fused_epilogue.hpp"
#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"
#include "conv/conv_solver.hpp"
#include "fusion/fusion_solver.hpp"
#include "handle/handle.hpp"

namespace anydnn {

// The activation operator's problem in place on `desc` (forward or backward), with the
// parameters of this call (BadParm for invalid ones).
ActivationProblem fusion_activation_problem(const FusionOp& op, const FusionOpArgs& a,
                                            const TensorDescriptor& desc);
// The same as a FusedActivation (MIOpen's fp32 parameters for the data type).
FusedActivation fused_activation(const FusionOp& op, const FusionOpArgs& a,
                                 const TensorDescriptor& desc);

// The BN operator's problem with this call's epsilon (and averaging factor), checked.
BnProblem fusion_bn_problem(const FusionProblem& p, const FusionOpArgs& a);

// BN buffers of a BN chain (the plan's input and output, the BN operator's arguments): forward
// inference / training x -> y, backward dy -> dx with x from the arguments.
BnBuffers fusion_bn_buffers(const FusionProblem& p, const FusionBuffers& b);

// The convolution solution a conv chain runs: immediate mode's ranking (find-db record first,
// then the cost models), restricted to the solvers `accept` takes (all when empty), and to the
// plan's algorithm: only it when the problem requires it, else it first when one of its solvers
// is accepted. Empty when nothing is left.
std::optional<miopenConvSolution_t> fusion_conv_solution(
    Handle& handle, const FusionProblem& p,
    const std::function<bool(const ConvSolverEntry&)>& accept = {});

// Where a solver's pieces of workspace go: `bytes` rounded up to 64.
inline size_t aligned_bytes(size_t bytes) {
  return (bytes + 63) / 64 * 64;
}

}  // namespace anydnn
