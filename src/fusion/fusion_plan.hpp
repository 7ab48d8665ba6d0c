// Fusion plans (MIOpen's fusion API): a vertical chain of operators on one input tensor. When
// the plan compiles, its operators become a FusionProblem (fusion/fusion_problem.hpp: checked
// against the chains MIOpen fuses, with one canonical key) and the first applicable solver of
// the backend's fusion registry (fusion/fusion_registry.hpp) is chosen: a fused one (the
// convolution solvers' epilogues apply bias, BN inference and the activation; the BN solvers
// fuse the activation) or, when none applies, FusionSequence, which runs the operators one by
// one through their front-ends. The chosen solver's workspace is allocated once, at compile
// time, and kept in the plan: MIOpen's miopenExecuteFusionPlan takes no workspace, and a plan
// is compiled once and executed many times (PyTorch caches them), so execute allocates nothing.
// A plan is not for concurrent execution from several threads (its workspace is shared).
#pragma once

#include <miopen/miopen.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "activation/activation_problem.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "fusion/fusion_problem.hpp"
#include "fusion/fusion_solver.hpp"
#include "handle/handle.hpp"

namespace anydnn {

// miopenOperatorArgs: the arguments of any plan's operators, by operator.
class OperatorArgs {
 public:
  FusionOpArgs& of(const FusionOp& op) { return args_[&op]; }
  const FusionOpArgs* find(const FusionOp& op) const;

 private:
  std::map<const FusionOp*, FusionOpArgs> args_;
};

class FusionPlan {
 public:
  FusionPlan(miopenFusionDirection_t direction, const TensorDescriptor& input);

  // Appends an operator whose input is the previous one's output (the plan's input for the
  // first); computes its output (BadParm when the shapes do not agree). The reference stays
  // valid as long as the plan.
  FusionOp& add(FusionOp op);
  const FusionOp& op(int index) const;  // BadParm out of range
  int size() const { return static_cast<int>(ops_.size()); }
  const TensorDescriptor& input() const { return input_; }
  const TensorDescriptor& output() const;

  // miopenFusionPlanConvolutionGetAlgo / SetAlgo (BadParm without a convolution operator).
  std::vector<miopenConvFwdAlgorithm_t> conv_algorithms() const;
  void set_conv_algorithm(miopenConvFwdAlgorithm_t algo);

  // Checks the chain (UnsupportedOp with the reason when MIOpen fuses no such chain or no
  // solver takes it, NotImplemented for horizontal fusion), chooses the fusion solver and
  // allocates its workspace; logs the choice (Info).
  void compile(Handle& handle);
  bool compiled() const { return compiled_; }
  // Runs a compiled plan (BadParm when not compiled, when a descriptor is not the plan's or when
  // an operator's arguments were not set). A plan compiled with another handle is compiled
  // again for this one first.
  void execute(Handle& handle, const TensorDescriptor& in_desc, const void* in,
               const TensorDescriptor& out_desc, void* out, const OperatorArgs& args);

  // miopenFusionPlanGetWorkSpaceSize: the workspace the chosen solver needs (what compiling
  // with this handle would choose, for a plan not compiled yet; UnsupportedOp as compile).
  size_t workspace_size(Handle& handle);
  // The chosen fusion solver's name (compiled plans; empty otherwise) and its problem's key.
  std::string solver_name() const;
  std::string key() const;

  // "ConvForward+BiasForward+ActivForward", for logs and messages.
  std::string chain_name() const;

 private:
  // What compile chose for one handle.
  struct Compiled {
    FusionProblem problem;
    const FusionSolverEntry* solver;
    FusionInvoker invoker;
  };
  const FusionOp* find(FusionOpKind kind) const;
  Compiled choose(Handle& handle) const;

  miopenFusionDirection_t direction_;
  TensorDescriptor input_;
  std::vector<std::unique_ptr<FusionOp>> ops_;  // stable addresses: the C handles point here
  std::optional<miopenConvFwdAlgorithm_t> algo_;
  bool compiled_ = false;
  std::optional<Compiled> compiled_state_;
  DeviceBuffer workspace_;
  const Handle* compiled_for_ = nullptr;
};

// miopenConvolutionBiasActivationForward: y = activation(alpha1 * conv(x, w) + alpha2 * z +
// bias); z may be null (z_desc then too). The workspace is used when large enough for the
// chosen solution, else the call allocates its own.
struct ConvBiasActivArgs {
  float alpha1 = 1.0f, alpha2 = 1.0f;
  const TensorDescriptor* x_desc = nullptr;
  const void* x = nullptr;
  const TensorDescriptor* w_desc = nullptr;
  const void* w = nullptr;
  const ConvolutionDescriptor* conv = nullptr;
  std::optional<miopenConvFwdAlgorithm_t> algo;
  void* workspace = nullptr;
  size_t workspace_size = 0;
  const TensorDescriptor* z_desc = nullptr;
  const void* z = nullptr;
  const TensorDescriptor* bias_desc = nullptr;
  const void* bias = nullptr;
  ActivMode activation;
  const TensorDescriptor* y_desc = nullptr;
  void* y = nullptr;
};
void conv_bias_activation_forward(Handle& handle, const ConvBiasActivArgs& a);

}  // namespace anydnn
