// Fusion plans (MIOpen's fusion API): a vertical chain of operators on one input tensor, checked
// when compiled against the chains MIOpen's fused solvers accept, then run. There is no fused
// kernel yet: every accepted chain runs as a sequence of the library's own primitives (the
// convolution's immediate-mode solution, conv bias, batch norm, activation, tensor ops) through
// their front-ends, on whatever backend the handle has, with scratch from the backend. So the
// results are those of the separate calls, and one front-end per primitive stays the only path.
#pragma once

#include <miopen/miopen.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "handle/handle.hpp"
#include "problem/activation_problem.hpp"

namespace anydnn {

// MIOpen's miopenFusionOp_t order (its internal enum).
enum class FusionOpKind {
  ConvForward = 0,
  ActivForward = 1,
  BnInference = 2,
  BiasForward = 3,
  BnForwardTraining = 4,
  BnBackward = 5,
  ActivBackward = 6,
};
const char* fusion_op_name(FusionOpKind kind);

// One operator as created (miopenCreateOp*), with the tensors it takes and gives.
struct FusionOp {
  FusionOpKind kind = FusionOpKind::ConvForward;
  int index = 0;
  TensorDescriptor in, out;
  ConvolutionDescriptor conv;  // ConvForward
  TensorDescriptor w;          // ConvForward
  // BiasForward: the bias; BnInference: scale / bias / mean / variance; BN training and
  // backward: derived from the input (miopenDeriveBNTensorDescriptor).
  TensorDescriptor param;
  miopenActivationMode_t activ_mode = miopenActivationPASTHRU;
  miopenBatchNormMode_t bn_mode = miopenBNSpatial;
  bool running = false;  // BnForwardTraining: update the running mean / variance
};

// What miopenSetOpArgs* stored for one operator (alpha / beta are not kept: ignored, as MIOpen's
// fused kernels ignore them).
struct FusionOpArgs {
  const void* w = nullptr;     // ConvForward
  const void* bias = nullptr;  // BiasForward
  double activ_alpha = 0.0, activ_beta = 0.0, activ_gamma = 0.0;
  const void* scale = nullptr;  // BN: gamma
  const void* shift = nullptr;  // BN: beta
  const void* mean = nullptr;   // inference: estimated; backward: saved
  const void* var = nullptr;    // inference: estimated variance; backward: saved inverse std
  void* saved_mean = nullptr;   // forward training outputs
  void* saved_invvar = nullptr;
  void* run_mean = nullptr;  // forward training, updated
  void* run_var = nullptr;
  double exp_avg_factor = 0.0, epsilon = 0.0;
  const void* x = nullptr;  // BnBackward: the forward input
  void* dscale = nullptr;   // BnBackward outputs
  void* dbias = nullptr;
};

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

  // Checks the chain (UnsupportedOp with the reason when MIOpen fuses no such chain,
  // NotImplemented for horizontal fusion) and picks the convolution's solution.
  void compile(Handle& handle);
  bool compiled() const { return compiled_; }
  // Runs a compiled plan (BadParm when not compiled, when a descriptor is not the plan's or when
  // an operator's arguments were not set).
  void execute(Handle& handle, const TensorDescriptor& in_desc, const void* in,
               const TensorDescriptor& out_desc, void* out, const OperatorArgs& args);

  // "ConvForward+BiasForward+ActivForward", for logs and messages.
  std::string chain_name() const;

 private:
  enum class Chain { ConvBiasBnActiv, BnInferenceActiv, BnTrainingActiv, BnBackwardActiv };
  const FusionOp* find(FusionOpKind kind) const;
  Chain classify() const;
  uint64_t conv_solution(Handle& handle) const;
  void run_conv_chain(Handle& handle, const void* in, void* out, const OperatorArgs& args);
  void run_bn_forward_chain(Handle& handle, const void* in, void* out, const OperatorArgs& args);
  void run_bn_backward_chain(Handle& handle, const void* in, void* out, const OperatorArgs& args);

  miopenFusionDirection_t direction_;
  TensorDescriptor input_;
  std::vector<std::unique_ptr<FusionOp>> ops_;  // stable addresses: the C handles point here
  std::optional<miopenConvFwdAlgorithm_t> algo_;
  bool compiled_ = false;
  Chain chain_ = Chain::ConvBiasBnActiv;
  const Handle* compiled_for_ = nullptr;
  uint64_t solution_ = 0;
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
