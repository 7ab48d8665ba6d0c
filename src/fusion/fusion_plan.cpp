#include "fusion/fusion_plan.hpp"

#include <sstream>

#include "activation/activation_ops.hpp"
#include "bn/bn_ops.hpp"
#include "conv/conv_bias.hpp"
#include "conv/conv_ops.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "problem/bn_problem.hpp"
#include "problem/conv_problem.hpp"
#include "problem/tensor_op_problem.hpp"
#include "tensor_ops/tensor_op_ops.hpp"

namespace anydnn {

namespace {

const char* algorithm_name(miopenConvFwdAlgorithm_t a) {
  switch (a) {
    case miopenConvolutionFwdAlgoGEMM:
      return "GEMM";
    case miopenConvolutionFwdAlgoDirect:
      return "Direct";
    case miopenConvolutionFwdAlgoFFT:
      return "FFT";
    case miopenConvolutionFwdAlgoWinograd:
      return "Winograd";
    case miopenConvolutionFwdAlgoImplicitGEMM:
      return "ImplicitGEMM";
  }
  return "unknown";
}

// A bias of one value per channel of `y`: 1 x C x 1 ... of y's data type.
void check_bias(const TensorDescriptor& b, const TensorDescriptor& y, const char* name) {
  const auto& l = b.lens();
  bool ok =
      b.num_dims() == y.num_dims() && l[0] == 1 && l[1] == y.lens()[1] && b.type() == y.type();
  for (size_t i = 2; ok && i < l.size(); ++i)
    ok = l[i] == 1;
  ANYDNN_CHECK_BADPARM(ok, name << " must be 1 x " << y.lens()[1]
                                << " x 1 ... of the output's type (one value per channel)");
}

// The arguments miopenSetOpArgs* stored for `op`, which must have been set.
const FusionOpArgs& args_of(const OperatorArgs& args, const FusionOp& op) {
  const FusionOpArgs* a = args.find(op);
  ANYDNN_CHECK_BADPARM(a != nullptr, "the arguments of fusion operator " << op.index << " ("
                                                                         << fusion_op_name(op.kind)
                                                                         << ") have not been set");
  return *a;
}

void require(const void* p, const FusionOp& op, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " of fusion operator " << op.index << " ("
                                          << fusion_op_name(op.kind) << ") is a null pointer");
}

// The activation operator's forward problem, in place on `desc`.
ActivationProblem activation_in_place(const FusionOp& op, const FusionOpArgs& a,
                                      const TensorDescriptor& desc) {
  ActivDescriptors d;
  d.x = &desc;
  d.y = &desc;
  return ActivationProblem(ActivDirection::Forward,
                           ActivMode{op.activ_mode, a.activ_alpha, a.activ_beta, a.activ_gamma}, d);
}

void run_in_place(Handle& handle, const ActivationProblem& p, void* data) {
  ActivationBuffers b;
  b.x = data;
  b.y = data;
  activation_run(handle, p, b);
}

BnDescriptors bn_descriptors(const TensorDescriptor& x, const TensorDescriptor& y,
                             const TensorDescriptor* dx, const TensorDescriptor& param) {
  BnDescriptors d;
  d.x = &x;
  d.y = &y;
  d.dx = dx;
  d.scale = d.bias = d.mean = d.var = &param;
  return d;
}

// C = A op (alpha2 * B) for the element-wise steps of the BN backward chain.
void tensor_op(Handle& handle, miopenTensorOp_t op, const TensorDescriptor& a_desc, const void* a,
               const TensorDescriptor& b_desc, const void* b, float alpha2, void* c) {
  const float one = 1.0f, zero = 0.0f;
  const auto p = TensorOpProblem::op_tensor(op, a_desc, b_desc, a_desc, &one, &alpha2, &zero);
  tensor_op_run(handle, p, TensorOpBuffers{a, b, c});
}

}  // namespace

const char* fusion_op_name(FusionOpKind kind) {
  switch (kind) {
    case FusionOpKind::ConvForward:
      return "ConvForward";
    case FusionOpKind::ActivForward:
      return "ActivForward";
    case FusionOpKind::BnInference:
      return "BatchNormInference";
    case FusionOpKind::BiasForward:
      return "BiasForward";
    case FusionOpKind::BnForwardTraining:
      return "BatchNormFwdTrain";
    case FusionOpKind::BnBackward:
      return "BatchNormBwdTrain";
    case FusionOpKind::ActivBackward:
      return "ActivBackward";
  }
  return "unknown";
}

const FusionOpArgs* OperatorArgs::find(const FusionOp& op) const {
  const auto it = args_.find(&op);
  return it == args_.end() ? nullptr : &it->second;
}

FusionPlan::FusionPlan(miopenFusionDirection_t direction, const TensorDescriptor& input)
    : direction_(direction), input_(input) {
  ANYDNN_CHECK_BADPARM(input.is_set(), "inputDesc has not been set");
}

const TensorDescriptor& FusionPlan::output() const {
  return ops_.empty() ? input_ : ops_.back()->out;
}

FusionOp& FusionPlan::add(FusionOp op) {
  op.index = size();
  op.in = output();
  switch (op.kind) {
    case FusionOpKind::ConvForward: {
      // The output keeps the input's layout (MIOpen's GetForwardOutputTensor).
      op.out = TensorDescriptor::with_layout(op.in.type(), op.in.layout(),
                                             op.conv.forward_output_lens(op.in, op.w));
      break;
    }
    case FusionOpKind::BiasForward:
      check_bias(op.param, op.in, "bDesc");
      op.out = op.in;
      break;
    case FusionOpKind::BnForwardTraining:
    case FusionOpKind::BnBackward:
      op.param = derive_bn_descriptor(op.in, op.bn_mode);
      op.out = op.in;
      break;
    default:
      op.out = op.in;
      break;
  }
  compiled_ = false;
  ops_.push_back(std::make_unique<FusionOp>(std::move(op)));
  return *ops_.back();
}

const FusionOp& FusionPlan::op(int index) const {
  ANYDNN_CHECK_BADPARM(
      index >= 0 && index < size(),
      "Operator index out of bounds: " << index << " (the plan has " << size() << " operators)");
  return *ops_[static_cast<size_t>(index)];
}

const FusionOp* FusionPlan::find(FusionOpKind kind) const {
  for (const auto& o : ops_)
    if (o->kind == kind) return o.get();
  return nullptr;
}

std::string FusionPlan::chain_name() const {
  std::ostringstream ss;
  for (const auto& o : ops_)
    ss << (o->index > 0 ? "+" : "") << fusion_op_name(o->kind);
  return ops_.empty() ? "(empty)" : ss.str();
}

std::vector<miopenConvFwdAlgorithm_t> FusionPlan::conv_algorithms() const {
  ANYDNN_CHECK_BADPARM(find(FusionOpKind::ConvForward) != nullptr,
                       "the fusion plan has no convolution operator");
  return {miopenConvolutionFwdAlgoGEMM, miopenConvolutionFwdAlgoDirect, miopenConvolutionFwdAlgoFFT,
          miopenConvolutionFwdAlgoWinograd, miopenConvolutionFwdAlgoImplicitGEMM};
}

void FusionPlan::set_conv_algorithm(miopenConvFwdAlgorithm_t algo) {
  ANYDNN_CHECK_BADPARM(find(FusionOpKind::ConvForward) != nullptr,
                       "the fusion plan has no convolution operator");
  algo_ = algo;
  compiled_ = false;
}

FusionPlan::Chain FusionPlan::classify() const {
  std::vector<FusionOpKind> k;
  for (const auto& o : ops_)
    k.push_back(o->kind);
  using K = FusionOpKind;
  if (k.size() >= 2 && k.front() == K::ConvForward) {
    // conv [+ bias] [+ BN inference] [+ activation], at least one of them (MIOpenDriver
    // CBAInfer's modes: cbna, cna, cba, ca, cb, cn)
    size_t i = 1;
    if (i < k.size() && k[i] == K::BiasForward) ++i;
    if (i < k.size() && k[i] == K::BnInference) ++i;
    if (i < k.size() && k[i] == K::ActivForward) ++i;
    if (i == k.size()) return Chain::ConvBiasBnActiv;
  }
  if (k.size() == 2 && k[0] == K::BnInference && k[1] == K::ActivForward)
    return Chain::BnInferenceActiv;
  if (k.size() == 2 && k[0] == K::BnForwardTraining && k[1] == K::ActivForward)
    return Chain::BnTrainingActiv;
  if (k.size() == 2 && k[0] == K::BnBackward && k[1] == K::ActivBackward)
    return Chain::BnBackwardActiv;
  ANYDNN_THROW(miopenStatusUnsupportedOp,
               "fusion plan " << chain_name()
                              << " is not a chain MIOpen fuses (convolution [+ bias] [+ BN "
                                 "inference] [+ activation], BN inference or training + "
                                 "activation, BN backward + activation backward)");
}

uint64_t FusionPlan::conv_solution(Handle& handle) const {
  const FusionOp& c = *find(FusionOpKind::ConvForward);
  const ConvProblem p(ConvDirection::Forward, c.in, c.w, c.conv, c.out);
  for (const miopenConvSolution_t& s : conv_solutions(handle, p))
    if (!algo_ || static_cast<int>(s.algorithm) == static_cast<int>(*algo_)) return s.solution_id;
  ANYDNN_THROW(miopenStatusUnsupportedOp, "no " << (algo_ ? algorithm_name(*algo_) : "")
                                                << " solver applies to the fusion plan's "
                                                   "convolution");
}

void FusionPlan::compile(Handle& handle) {
  ANYDNN_CHECK(direction_ == miopenVerticalFusion, miopenStatusNotImplemented,
               "horizontal fusion is not implemented (MIOpen: Unsupported fusion direction)");
  chain_ = classify();
  // Every operator's problem is built once here, so bad descriptors fail at compile time.
  for (const auto& o : ops_) {
    switch (o->kind) {
      case FusionOpKind::ActivForward:
      case FusionOpKind::ActivBackward: {
        ActivDescriptors d;
        d.x = d.y = d.dx = d.dy = &o->in;
        ActivationProblem(o->kind == FusionOpKind::ActivForward ? ActivDirection::Forward
                                                                : ActivDirection::Backward,
                          ActivMode{o->activ_mode, 0.0, 0.0, 0.0}, d);
        break;
      }
      case FusionOpKind::BnInference:
        BnProblem(BnDirection::ForwardInference, o->bn_mode,
                  bn_descriptors(o->in, o->out, nullptr, o->param), 1e-5, 0.0, false, true);
        break;
      case FusionOpKind::BnForwardTraining:
        BnProblem(BnDirection::ForwardTraining, o->bn_mode,
                  bn_descriptors(o->in, o->out, nullptr, o->param), 1e-5, 0.0, true, o->running);
        break;
      case FusionOpKind::BnBackward:
        BnProblem(BnDirection::Backward, o->bn_mode,
                  bn_descriptors(o->in, o->out, &o->out, o->param), 1e-5, 0.0, true, false);
        // The activation's input is recomputed from x with tensor ops, which take one type.
        ANYDNN_CHECK(o->param.type() == o->in.type(), miopenStatusUnsupportedOp,
                     "BN backward + activation backward needs parameters of the data's type");
        break;
      default:
        break;
    }
  }
  if (chain_ == Chain::ConvBiasBnActiv) solution_ = conv_solution(handle);
  compiled_ = true;
  compiled_for_ = &handle;
  ANYDNN_LOG_I(handle.config(), "fusion plan " << chain_name() << ": no fused kernel, its "
                                               << size() << " operators run in sequence");
}

void FusionPlan::execute(Handle& handle, const TensorDescriptor& in_desc, const void* in,
                         const TensorDescriptor& out_desc, void* out, const OperatorArgs& args) {
  ANYDNN_CHECK_BADPARM(compiled_,
                       "the fusion plan has not been compiled (miopenCompileFusionPlan)");
  ANYDNN_CHECK_BADPARM(in_desc == input_,
                       "The input descriptors dont match (inputDesc is not "
                       "the plan's input descriptor)");
  ANYDNN_CHECK_BADPARM(out_desc == output(),
                       "The output descriptors dont match (outputDesc is "
                       "not the descriptor the plan's operators produce)");
  ANYDNN_CHECK_BADPARM(in != nullptr && out != nullptr, "input or output is a null pointer");
  if (chain_ == Chain::ConvBiasBnActiv && compiled_for_ != &handle) {
    solution_ = conv_solution(handle);  // compiled with another handle
    compiled_for_ = &handle;
  }
  switch (chain_) {
    case Chain::ConvBiasBnActiv:
      run_conv_chain(handle, in, out, args);
      break;
    case Chain::BnInferenceActiv:
    case Chain::BnTrainingActiv:
      run_bn_forward_chain(handle, in, out, args);
      break;
    case Chain::BnBackwardActiv:
      run_bn_backward_chain(handle, in, out, args);
      break;
  }
}

void FusionPlan::run_conv_chain(Handle& handle, const void* in, void* out,
                                const OperatorArgs& args) {
  const FusionOp& c = *find(FusionOpKind::ConvForward);
  const FusionOp* bias = find(FusionOpKind::BiasForward);
  const FusionOp* bn = find(FusionOpKind::BnInference);
  const FusionOp* act = find(FusionOpKind::ActivForward);
  const FusionOpArgs& ca = args_of(args, c);
  require(ca.w, c, "w");
  // Check every operator's arguments before the first kernel runs.
  const FusionOpArgs* ba = bias ? &args_of(args, *bias) : nullptr;
  if (bias) require(ba->bias, *bias, "bias");
  const FusionOpArgs* na = bn ? &args_of(args, *bn) : nullptr;
  if (bn) {
    require(na->scale, *bn, "bnScale");
    require(na->shift, *bn, "bnBias");
    require(na->mean, *bn, "estimatedMean");
    require(na->var, *bn, "estimatedVariance");
  }
  // Every later step's problem is built (and so checked) before the first kernel writes the
  // output: a bad epsilon or activation parameter leaves the caller's memory as it was.
  std::optional<ActivationProblem> ap;
  if (act) ap.emplace(activation_in_place(*act, args_of(args, *act), act->in));
  std::optional<BnProblem> bp;
  if (bn)
    bp.emplace(BnDirection::ForwardInference, bn->bn_mode,
               bn_descriptors(bn->in, bn->out, nullptr, bn->param), na->epsilon, 0.0, false, true);

  const ConvProblem p(ConvDirection::Forward, c.in, c.w, c.conv, c.out);
  const size_t ws_bytes = conv_solution_workspace_size(handle, p, solution_);
  DeviceBuffer ws = ws_bytes ? handle.backend().allocate(ws_bytes) : DeviceBuffer();
  // With BN the convolution (and bias) go to scratch, BN writes the output.
  DeviceBuffer scratch = bn ? handle.backend().allocate(c.out.num_bytes()) : DeviceBuffer();
  void* conv_out = bn ? scratch.get() : out;
  ConvBuffers cb;
  cb.x = const_cast<void*>(in);
  cb.w = const_cast<void*>(ca.w);
  cb.y = conv_out;
  cb.workspace = ws.get();
  cb.workspace_size = ws_bytes;
  conv_run_solution(handle, p, solution_, cb);
  if (bias) conv_bias_forward(handle, bias->param, ba->bias, c.out, conv_out, 1.0f, 0.0f);
  if (bn) {
    BnBuffers b;
    b.x = conv_out;
    b.y = out;
    b.scale = na->scale;
    b.bias = na->shift;
    b.run_mean = const_cast<void*>(na->mean);
    b.run_var = const_cast<void*>(na->var);
    bn_run(handle, *bp, b);
  }
  if (ap) run_in_place(handle, *ap, out);
}

void FusionPlan::run_bn_forward_chain(Handle& handle, const void* in, void* out,
                                      const OperatorArgs& args) {
  const FusionOp& bn = *ops_[0];
  const FusionOp& act = *ops_[1];
  const FusionOpArgs& na = args_of(args, bn);
  const FusionOpArgs& aa = args_of(args, act);
  require(na.scale, bn, "bnScale");
  require(na.shift, bn, "bnBias");
  const ActivationProblem ap = activation_in_place(act, aa, act.in);  // checked before BN runs
  BnBuffers b;
  b.x = in;
  b.y = out;
  b.scale = na.scale;
  b.bias = na.shift;
  if (bn.kind == FusionOpKind::BnInference) {
    require(na.mean, bn, "estimatedMean");
    require(na.var, bn, "estimatedVariance");
    const BnProblem p(BnDirection::ForwardInference, bn.bn_mode,
                      bn_descriptors(bn.in, bn.out, nullptr, bn.param), na.epsilon, 0.0, false,
                      true);
    b.run_mean = const_cast<void*>(na.mean);
    b.run_var = const_cast<void*>(na.var);
    bn_run(handle, p, b);
  } else {
    require(na.saved_mean, bn, "savedMean");
    require(na.saved_invvar, bn, "savedInvVariance");
    if (bn.running) {
      require(na.run_mean, bn, "runningMean");
      require(na.run_var, bn, "runningVariance");
    }
    const BnProblem p(BnDirection::ForwardTraining, bn.bn_mode,
                      bn_descriptors(bn.in, bn.out, nullptr, bn.param), na.epsilon,
                      na.exp_avg_factor, true, bn.running);
    b.saved_mean = na.saved_mean;
    b.saved_invstd = na.saved_invvar;
    if (bn.running) {
      b.run_mean = na.run_mean;
      b.run_var = na.run_var;
    }
    bn_run(handle, p, b);
  }
  run_in_place(handle, ap, out);
}

// MIOpen's fused BN backward + activation backward recomputes the activation's input
// (bn(x) = scale * (x - mean) * invstd + bias, from the saved statistics) and its output, takes
// the activation's derivative there, then runs BN backward on that gradient.
void FusionPlan::run_bn_backward_chain(Handle& handle, const void* in, void* out,
                                       const OperatorArgs& args) {
  const FusionOp& bn = *ops_[0];
  const FusionOp& act = *ops_[1];
  const FusionOpArgs& na = args_of(args, bn);
  const FusionOpArgs& aa = args_of(args, act);
  require(na.x, bn, "x");
  require(na.scale, bn, "bnScale");
  require(na.shift, bn, "bnBias");
  require(na.dscale, bn, "resultBnScaleDiff");
  require(na.dbias, bn, "resultBnBiasDiff");
  require(na.mean, bn, "savedMean");
  require(na.var, bn, "savedInvVariance");
  const TensorDescriptor& d = bn.in;  // x, dy, dx and every scratch tensor
  const TensorDescriptor& pd = bn.param;
  DeviceBuffer pre = handle.backend().allocate(d.num_bytes());
  DeviceBuffer post = handle.backend().allocate(d.num_bytes());
  DeviceBuffer grad = handle.backend().allocate(d.num_bytes());
  tensor_op(handle, miopenTensorOpAdd, d, na.x, pd, na.mean, -1.0f, pre.get());
  tensor_op(handle, miopenTensorOpMul, d, pre.get(), pd, na.var, 1.0f, pre.get());
  tensor_op(handle, miopenTensorOpMul, d, pre.get(), pd, na.scale, 1.0f, pre.get());
  tensor_op(handle, miopenTensorOpAdd, d, pre.get(), pd, na.shift, 1.0f, pre.get());
  const ActivMode mode{act.activ_mode, aa.activ_alpha, aa.activ_beta, aa.activ_gamma};
  {
    ActivDescriptors ad;
    ad.x = ad.y = &d;
    ActivationBuffers ab;
    ab.x = pre.get();
    ab.y = post.get();
    activation_run(handle, ActivationProblem(ActivDirection::Forward, mode, ad), ab);
  }
  {
    ActivDescriptors ad;
    ad.x = ad.y = ad.dx = ad.dy = &d;
    ActivationBuffers ab;
    ab.y = post.get();
    ab.dy = in;
    ab.x = pre.get();
    ab.dx = grad.get();
    activation_run(handle, ActivationProblem(ActivDirection::Backward, mode, ad), ab);
  }
  const BnProblem p(BnDirection::Backward, bn.bn_mode, bn_descriptors(d, d, &d, pd), 1e-5, 0.0,
                    true, false);
  BnBuffers b;
  b.x = na.x;
  b.dy = grad.get();
  b.dx = out;
  b.scale = na.scale;
  b.dscale = na.dscale;
  b.dbias = na.dbias;
  b.saved_mean = const_cast<void*>(na.mean);
  b.saved_invstd = const_cast<void*>(na.var);
  bn_run(handle, p, b);
}

void conv_bias_activation_forward(Handle& handle, const ConvBiasActivArgs& a) {
  const ConvProblem p(ConvDirection::Forward, *a.x_desc, *a.w_desc, *a.conv, *a.y_desc);
  ANYDNN_CHECK_BADPARM(a.x && a.w && a.y, "x, w and y must not be null");
  ANYDNN_CHECK_BADPARM(a.bias_desc != nullptr && a.bias != nullptr, "bias is a null pointer");
  ANYDNN_CHECK_BADPARM((a.z == nullptr) == (a.z_desc == nullptr),
                       "z and zDesc must be both set or both null");
  check_bias(*a.bias_desc, *a.y_desc, "biasDesc");
  // Build the later steps' problems first: a bad descriptor fails before anything runs.
  ActivDescriptors ad;
  ad.x = ad.y = a.y_desc;
  const ActivationProblem act(ActivDirection::Forward, a.activation, ad);
  const float zero = 0.0f;
  std::optional<TensorOpProblem> scale_step;
  if (a.z != nullptr)
    scale_step = TensorOpProblem::op_tensor(miopenTensorOpAdd, *a.y_desc, *a.z_desc, *a.y_desc,
                                            &a.alpha1, &a.alpha2, &zero);
  else if (a.alpha1 != 1.0f)
    scale_step = TensorOpProblem::scale_tensor(*a.y_desc, &a.alpha1);

  // The requested algorithm when one of its solvers applies, else the best solution.
  const auto sols = conv_solutions(handle, p);
  ANYDNN_CHECK(!sols.empty(), miopenStatusNotImplemented, "no convolution solver applies");
  uint64_t id = sols.front().solution_id;
  bool found = !a.algo.has_value();
  for (const auto& s : sols)
    if (a.algo && static_cast<int>(s.algorithm) == static_cast<int>(*a.algo)) {
      id = s.solution_id;
      found = true;
      break;
    }
  if (!found)
    ANYDNN_LOG_I(handle.config(), "miopenConvolutionBiasActivationForward: no "
                                      << algorithm_name(*a.algo)
                                      << " solver applies; running solution " << id);
  const size_t need = conv_solution_workspace_size(handle, p, id);
  DeviceBuffer own;
  ConvBuffers cb;
  cb.x = const_cast<void*>(a.x);
  cb.w = const_cast<void*>(a.w);
  cb.y = a.y;
  if (need > 0 && (a.workspace == nullptr || a.workspace_size < need)) {
    own = handle.backend().allocate(need);
    cb.workspace = own.get();
    cb.workspace_size = need;
  } else {
    cb.workspace = a.workspace;
    cb.workspace_size = a.workspace_size;
  }
  conv_run_solution(handle, p, id, cb);
  if (scale_step && a.z != nullptr)
    tensor_op_run(handle, *scale_step, TensorOpBuffers{a.y, a.z, a.y});
  else if (scale_step)
    tensor_op_run(handle, *scale_step, TensorOpBuffers{nullptr, nullptr, a.y});
  conv_bias_forward(handle, *a.bias_desc, a.bias, *a.y_desc, a.y, 1.0f, 0.0f);
  ActivationBuffers ab;
  ab.x = a.y;
  ab.y = a.y;
  activation_run(handle, act, ab);
}

}  // namespace anydnn
