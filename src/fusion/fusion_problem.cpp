#include "fusion/fusion_problem.hpp"

#include <sstream>

#include "activation/activation_problem.hpp"
#include "core/errors.hpp"

namespace anydnn {

namespace {

using K = FusionOpKind;

BnDescriptors bn_descriptors(const FusionOp& o, bool backward) {
  BnDescriptors d;
  d.x = &o.in;
  d.y = &o.out;
  d.dx = backward ? &o.out : nullptr;
  d.scale = d.bias = d.mean = d.var = &o.param;
  return d;
}

BnProblem make_bn(const FusionOp& o, double epsilon, double exp_avg_factor) {
  switch (o.kind) {
    case K::BnInference:
      return BnProblem(BnDirection::ForwardInference, o.bn_mode, bn_descriptors(o, false), epsilon,
                       0.0, false, true);
    case K::BnForwardTraining:
      return BnProblem(BnDirection::ForwardTraining, o.bn_mode, bn_descriptors(o, false), epsilon,
                       exp_avg_factor, true, o.running);
    default:
      return BnProblem(BnDirection::Backward, o.bn_mode, bn_descriptors(o, true), epsilon, 0.0,
                       true, false);
  }
}

// CBAInfer's base for the data type (see the header on MIOpen's naming).
const char* cba_base(miopenDataType_t t) {
  return t == miopenHalf ? "CBAInferfp16" : t == miopenBFloat16 ? "CBAInferbfp16" : "CBAInfer";
}

// MIOpen's ConvArgsForMIOpenDriver(..., print_for_conv_driver = false): the user's view of the
// convolution (a transposed one prints as given, with -k the true output channel count).
void conv_args(std::ostream& ss, const FusionOp& c) {
  write_conv_flags(ss, c.in, c.w, c.conv, c.out);
  ss << " -g " << c.conv.group_count();
  if (c.conv.mode() == miopenTranspose) ss << " --conv_mode trans";
}

}  // namespace

const char* fusion_op_name(FusionOpKind kind) {
  switch (kind) {
    case K::ConvForward:
      return "ConvForward";
    case K::ActivForward:
      return "ActivForward";
    case K::BnInference:
      return "BatchNormInference";
    case K::BiasForward:
      return "BiasForward";
    case K::BnForwardTraining:
      return "BatchNormFwdTrain";
    case K::BnBackward:
      return "BatchNormBwdTrain";
    case K::ActivBackward:
      return "ActivBackward";
    case K::TensorScaleAdd:
      return "TensorScaleAdd";
  }
  return "unknown";
}

std::string fusion_chain_name(const std::vector<FusionOpKind>& kinds) {
  std::ostringstream ss;
  for (size_t i = 0; i < kinds.size(); ++i)
    ss << (i > 0 ? "+" : "") << fusion_op_name(kinds[i]);
  return kinds.empty() ? "(empty)" : ss.str();
}

FusionProblem::FusionProblem(std::vector<FusionOp> ops,
                             std::optional<miopenConvFwdAlgorithm_t> algo, bool algo_required,
                             bool scaled_conv)
    : ops_(std::move(ops)), algo_(algo), algo_required_(algo_required), scaled_conv_(scaled_conv) {
  classify();
  // Every operator's problem is built here, so bad descriptors fail at compile time.
  for (const FusionOp& o : ops_) {
    switch (o.kind) {
      case K::ConvForward:
        conv_.emplace(ConvDirection::Forward, o.in, o.w, o.conv, o.out);
        break;
      case K::ActivForward:
      case K::ActivBackward: {
        ActivDescriptors d;
        d.x = d.y = d.dx = d.dy = &o.in;
        ActivationProblem(
            o.kind == K::ActivForward ? ActivDirection::Forward : ActivDirection::Backward,
            ActivMode{o.activ_mode, 0.0, 0.0, 0.0}, d);
        break;
      }
      case K::BnInference:
      case K::BnForwardTraining:
      case K::BnBackward:
        bn_.emplace(make_bn(o, 1e-5, 0.0));
        break;
      case K::TensorScaleAdd:
        ANYDNN_CHECK_BADPARM(o.param.lens() == o.in.lens() && o.param.type() == o.in.type(),
                             "zDesc must have the output's lengths and data type");
        break;
      case K::BiasForward:
        break;  // checked when the operator was added
    }
  }
  build_key();
}

const FusionOp* FusionProblem::find(FusionOpKind kind) const {
  for (const FusionOp& o : ops_)
    if (o.kind == kind) return &o;
  return nullptr;
}

std::string FusionProblem::chain_name() const {
  std::vector<FusionOpKind> k;
  for (const FusionOp& o : ops_)
    k.push_back(o.kind);
  return fusion_chain_name(k);
}

miopenActivationMode_t FusionProblem::activation_mode() const {
  for (const FusionOp& o : ops_)
    if (o.kind == K::ActivForward || o.kind == K::ActivBackward) return o.activ_mode;
  return miopenActivationPASTHRU;
}

BnProblem FusionProblem::bn_with_epsilon(double epsilon, double exp_avg_factor) const {
  for (const FusionOp& o : ops_)
    if (o.kind == K::BnInference || o.kind == K::BnForwardTraining || o.kind == K::BnBackward)
      return make_bn(o, epsilon, exp_avg_factor);
  ANYDNN_THROW(miopenStatusInternalError, "fusion chain " << chain_name() << " has no BN operator");
}

void FusionProblem::classify() {
  std::vector<FusionOpKind> k;
  for (const FusionOp& o : ops_)
    k.push_back(o.kind);
  if (k.size() >= 2 && k.front() == K::ConvForward) {
    // conv [+ z] [+ bias] [+ BN inference] [+ activation], at least one of them (MIOpenDriver
    // CBAInfer's modes: cbna, cna, cba, ca, cb, cn; z only from the one-call API)
    size_t i = 1;
    for (const K step : {K::TensorScaleAdd, K::BiasForward, K::BnInference, K::ActivForward})
      if (i < k.size() && k[i] == step) ++i;
    if (i == k.size()) {
      chain_ = FusionChain::Conv;
      return;
    }
  }
  if (k.size() == 2 && k[0] == K::BnInference && k[1] == K::ActivForward) {
    chain_ = FusionChain::BnInferenceActiv;
    return;
  }
  if (k.size() == 2 && k[0] == K::BnForwardTraining && k[1] == K::ActivForward) {
    chain_ = FusionChain::BnTrainingActiv;
    return;
  }
  if (k.size() == 2 && k[0] == K::BnBackward && k[1] == K::ActivBackward) {
    chain_ = FusionChain::BnBackwardActiv;
    return;
  }
  ANYDNN_THROW(miopenStatusUnsupportedOp,
               "fusion plan " << fusion_chain_name(k)
                              << " is not a chain MIOpen fuses (convolution [+ bias] [+ BN "
                                 "inference] [+ activation], BN inference or training + "
                                 "activation, BN backward + activation backward)");
}

void FusionProblem::build_key() {
  std::ostringstream ss;
  const FusionOp* activ = find(K::ActivForward);
  switch (chain_) {
    case FusionChain::Conv: {
      const bool bias = find(K::BiasForward) != nullptr;
      const FusionOp* bn = find(K::BnInference);
      // MIOpen's GetFusionMode; conv + bias + BN (no mode of its own) is cbna with PASTHRU.
      mode_ = bn ? (bias || !activ ? (bias ? 0 : 3) : 1) : (bias ? (activ ? 4 : 6) : 5);
      ss << cba_base(data_type()) << " -F " << mode_;
      conv_args(ss, ops_.front());
      if (activ || mode_ == 0) ss << " -m " << (activ ? static_cast<int>(activ->activ_mode) : 0);
      if (bn) ss << " -M " << static_cast<int>(bn->bn_mode);
      if (find(K::TensorScaleAdd)) ss << " --residual 1";
      break;
    }
    case FusionChain::BnInferenceActiv: {
      mode_ = 2;
      const FusionOp& bn = ops_.front();
      const auto& l = bn.in.lens();
      ss << cba_base(data_type()) << " -F 2 -n " << l[0] << " -c " << l[1];
      if (l.size() == 5) ss << " -D " << l[2];
      ss << " -H " << l[l.size() - 2] << " -W " << l[l.size() - 1] << " -M "
         << static_cast<int>(bn.bn_mode) << " -m " << static_cast<int>(activ->activ_mode);
      const std::string layout = bn_->layout();
      if (layout != "NCHW" && layout != "NCDHW") ss << " --layout " << layout;
      break;
    }
    case FusionChain::BnTrainingActiv:
    case FusionChain::BnBackwardActiv:
      // No MIOpen line: the BN operator's bnorm line under its base + "_activ" (a base the
      // driver and the log decoder do not take, so the line is not mistaken for a plain BN),
      // then the activation mode.
      mode_ = -1;
      {
        const std::string& k = bn_->key();
        const size_t sp = k.find(' ');
        ss << k.substr(0, sp) << "_activ" << k.substr(sp) << " --activ "
           << static_cast<int>(activation_mode());
      }
      break;
  }
  key_ = ss.str();
}

}  // namespace anydnn
