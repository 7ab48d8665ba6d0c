// A fusion problem: the operators of a compiled fusion plan (miopenCreateFusionPlan +
// miopenCreateOp*) or of one miopenConvolutionBiasActivationForward call, checked against the
// chains MIOpen fuses, with every operator's own problem built (so bad descriptors fail when the
// plan compiles) and one canonical key in MIOpenDriver syntax (log field, test name, repro line):
//
//   convolution chains (MIOpen's CBAInfer -F modes: cbna 0, cna 1, cn 3, cba 4, ca 5, cb 6)
//     "CBAInfer -F 4 -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -m
//     3"
//   BN inference + activation (mode 2)
//     "CBAInfer -F 2 -n 4 -c 64 -H 56 -W 56 -M 1 -m 3"
//   BN forward training / backward + activation (no MIOpen driver line)
//     "bnorm_activ -n 4 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1 --layout NCHW --activ 3"
//
// The conv chains print what MIOpen's LogCmdFusion prints (its ConvArgsForMIOpenDriver: the
// conv flags, layouts, -g) plus CBAInfer's own -m (activation mode) and -M (BN mode) where the
// chain has them, so the line replays on MIOpenDriver CBAInfer with the plan's modes (MIOpen
// omits them and prints the BN mode of mode 2 as -m, which its driver reads as the activation).
// Chains without a MIOpen mode take the mode they equal: conv + bias + BN is cbna with -m 0
// (PASTHRU). The base names the data type: CBAInfer, CBAInferfp16, CBAInferbfp16 (MIOpen prints
// CBAInferfp16 for bfloat16 only). Extensions that no driver reads: " --conv_mode trans" for a
// transposed convolution and " --residual 1" for miopenConvolutionBiasActivationForward's z.
// The BN training and backward chains print the BN operator's own bnorm line (bn_problem.hpp)
// with "_activ" appended to its base (bnorm_activ, bnormfp16fp32_activ, ...: no driver or log
// decoder takes it for a plain BN) and " --activ <activation mode>" at the end.
// docs/log-formats.md, "Fusion".
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "bn/bn_problem.hpp"
#include "conv/conv_problem.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"

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
  // + alpha2 * z: only miopenConvolutionBiasActivationForward builds it (as MIOpen's does);
  // the public API has no call that creates one.
  TensorScaleAdd = 7,
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
  // backward: derived from the input (miopenDeriveBNTensorDescriptor); TensorScaleAdd: z.
  TensorDescriptor param;
  miopenActivationMode_t activ_mode = miopenActivationPASTHRU;
  miopenBatchNormMode_t bn_mode = miopenBNSpatial;
  bool running = false;  // BnForwardTraining: update the running mean / variance
};

// What miopenSetOpArgs* stored for one operator (alpha / beta are not kept: ignored, as MIOpen's
// fused kernels ignore them; miopenConvolutionBiasActivationForward's alpha1 / alpha2 are).
struct FusionOpArgs {
  const void* w = nullptr;     // ConvForward
  float conv_alpha = 1.0f;     // ConvForward: alpha1 of the one-call API
  const void* bias = nullptr;  // BiasForward
  const void* z = nullptr;     // TensorScaleAdd
  float z_alpha = 1.0f;
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

enum class FusionChain {
  Conv,              // conv [+ z] [+ bias] [+ BN inference] [+ activation], at least one step
  BnInferenceActiv,  // BN inference + activation
  BnTrainingActiv,   // BN forward training + activation
  BnBackwardActiv,   // BN backward + activation backward
};

class FusionProblem {
 public:
  // Throws UnsupportedOp (with the chain named) when MIOpen fuses no such chain, BadParm /
  // NotImplemented when an operator's own problem is invalid or unsupported. `algo`: the
  // plan's miopenFusionPlanConvolutionSetAlgo (a requirement), or the one-call API's algo (a
  // preference: `algo_required` false); `scaled_conv`: the convolution result is multiplied by
  // a factor (alpha1 != 1 of the one-call API).
  FusionProblem(std::vector<FusionOp> ops, std::optional<miopenConvFwdAlgorithm_t> algo = {},
                bool algo_required = true, bool scaled_conv = false);

  FusionChain chain() const { return chain_; }
  const std::vector<FusionOp>& ops() const { return ops_; }
  const FusionOp* find(FusionOpKind kind) const;  // null when the chain has none
  const FusionOp& input_op() const { return ops_.front(); }
  const TensorDescriptor& input() const { return ops_.front().in; }
  const TensorDescriptor& output() const { return ops_.back().out; }
  miopenDataType_t data_type() const { return input().type(); }

  // Conv chains: the forward convolution.
  const ConvProblem& conv() const { return *conv_; }
  std::optional<miopenConvFwdAlgorithm_t> conv_algorithm() const { return algo_; }
  bool algorithm_required() const { return algo_required_; }
  bool scaled_conv() const { return scaled_conv_; }
  // The BN operator's problem (every chain with one), built with epsilon 1e-5: the value of a
  // call (miopenSetOpArgsBatchNorm*) is only known when it runs (bn_with_epsilon).
  const BnProblem* bn() const { return bn_ ? &*bn_ : nullptr; }
  BnProblem bn_with_epsilon(double epsilon, double exp_avg_factor) const;
  // The activation operator's mode (PASTHRU when the chain has none).
  miopenActivationMode_t activation_mode() const;

  // MIOpen's fusion mode (GetFusionMode: 0 cbna ... 6 cb) of the key's -F, -1 for the BN
  // training and backward chains.
  int mode() const { return mode_; }
  const std::string& key() const { return key_; }
  // "ConvForward+BiasForward+ActivForward", for logs and messages.
  std::string chain_name() const;

 private:
  void classify();
  void build_key();

  std::vector<FusionOp> ops_;
  std::optional<miopenConvFwdAlgorithm_t> algo_;
  bool algo_required_ = true;
  bool scaled_conv_ = false;
  FusionChain chain_ = FusionChain::Conv;
  std::optional<ConvProblem> conv_;
  std::optional<BnProblem> bn_;
  int mode_ = -1;
  std::string key_;
};

// The chain name of any list of operators (also of one that is not a valid chain).
std::string fusion_chain_name(const std::vector<FusionOpKind>& kinds);

}  // namespace anydnn
