#include "fusion/fusion_plan.hpp"

#include <sstream>

#include "backend/backend.hpp"
#include "bn/bn_problem.hpp"
#include "conv/conv_problem.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

namespace {

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

}  // namespace

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

namespace {

// The first applicable fusion solver of the backend's registry (fallback-only ones last);
// UnsupportedOp with every reason when none applies (MIOpen: no fusion solver for the plan).
const FusionSolverEntry& select_fusion_solver(Handle& handle, const FusionProblem& p) {
  std::string reasons;
  const FusionSolverEntry* e =
      first_applicable(handle.backend().solvers<FusionSolver>(), handle.context(), p, reasons);
  ANYDNN_CHECK(e != nullptr, miopenStatusUnsupportedOp,
               "no fusion solver takes " << p.key() << " (" << reasons << ")");
  return *e;
}

// Each operator's arguments by role, with every pointer the chain reads checked before
// anything runs.
FusionOpArgsByRole collect_args(const std::vector<std::unique_ptr<FusionOp>>& ops,
                                const OperatorArgs& args) {
  FusionOpArgsByRole r;
  for (const auto& op : ops) {
    const FusionOp& o = *op;
    const FusionOpArgs& a = args_of(args, o);
    switch (o.kind) {
      case FusionOpKind::ConvForward:
        require(a.w, o, "w");
        r.conv = &a;
        break;
      case FusionOpKind::BiasForward:
        require(a.bias, o, "bias");
        r.bias = &a;
        break;
      case FusionOpKind::TensorScaleAdd:
        require(a.z, o, "z");
        r.residual = &a;
        break;
      case FusionOpKind::BnInference:
        require(a.scale, o, "bnScale");
        require(a.shift, o, "bnBias");
        require(a.mean, o, "estimatedMean");
        require(a.var, o, "estimatedVariance");
        r.bn = &a;
        break;
      case FusionOpKind::BnForwardTraining:
        require(a.scale, o, "bnScale");
        require(a.shift, o, "bnBias");
        require(a.saved_mean, o, "savedMean");
        require(a.saved_invvar, o, "savedInvVariance");
        if (o.running) {
          require(a.run_mean, o, "runningMean");
          require(a.run_var, o, "runningVariance");
        }
        r.bn = &a;
        break;
      case FusionOpKind::BnBackward:
        require(a.x, o, "x");
        require(a.scale, o, "bnScale");
        require(a.shift, o, "bnBias");
        require(a.dscale, o, "resultBnScaleDiff");
        require(a.dbias, o, "resultBnBiasDiff");
        require(a.mean, o, "savedMean");
        require(a.var, o, "savedInvVariance");
        r.bn = &a;
        break;
      case FusionOpKind::ActivForward:
      case FusionOpKind::ActivBackward:
        r.activ = &a;
        break;
    }
  }
  return r;
}

}  // namespace

FusionPlan::Compiled FusionPlan::choose(Handle& handle) const {
  ANYDNN_CHECK(direction_ == miopenVerticalFusion, miopenStatusNotImplemented,
               "horizontal fusion is not implemented (MIOpen: Unsupported fusion direction)");
  std::vector<FusionOp> ops;
  for (const auto& o : ops_)
    ops.push_back(*o);
  FusionProblem problem(std::move(ops), algo_);
  const FusionSolverEntry& e = select_fusion_solver(handle, problem);
  FusionInvoker invoker = e.solver->compile(handle, problem);
  return Compiled{std::move(problem), &e, std::move(invoker)};
}

void FusionPlan::compile(Handle& handle) {
  compiled_ = false;
  compiled_state_.reset();
  workspace_.reset();
  Compiled c = choose(handle);
  const size_t ws = c.invoker.workspace_size;
  workspace_ = ws ? handle.backend().allocate(ws) : DeviceBuffer();
  ANYDNN_LOG_I(handle.config(), "fusion plan " << c.problem.key() << " (" << chain_name()
                                               << "): " << c.solver->solver->name() << " ("
                                               << c.invoker.detail << "), workspace " << ws);
  compiled_state_.emplace(std::move(c));
  compiled_ = true;
  compiled_for_ = &handle;
}

size_t FusionPlan::workspace_size(Handle& handle) {
  if (compiled_ && compiled_for_ == &handle) return compiled_state_->invoker.workspace_size;
  return choose(handle).invoker.workspace_size;
}

std::string FusionPlan::solver_name() const {
  return compiled_ ? std::string(compiled_state_->solver->solver->name()) : std::string();
}

std::string FusionPlan::key() const {
  return compiled_ ? compiled_state_->problem.key() : std::string();
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
  FusionBuffers b;
  b.args = collect_args(ops_, args);
  if (compiled_for_ != &handle) {
    ANYDNN_LOG_I(handle.config(), "fusion plan " << chain_name()
                                                 << " was compiled with another handle: "
                                                    "compiling it for this one");
    compile(handle);
  }
  b.in = in;
  b.out = out;
  b.workspace = workspace_.get();
  b.workspace_size = compiled_state_->invoker.workspace_size;
  compiled_state_->invoker.run(handle, b);
}

void conv_bias_activation_forward(Handle& handle, const ConvBiasActivArgs& a) {
  ANYDNN_CHECK_BADPARM(a.x && a.w && a.y, "x, w and y must not be null");
  ANYDNN_CHECK_BADPARM(a.bias_desc != nullptr && a.bias != nullptr, "bias is a null pointer");
  ANYDNN_CHECK_BADPARM((a.z == nullptr) == (a.z_desc == nullptr),
                       "z and zDesc must be both set or both null");
  // MIOpen's own implementation builds the plan conv + z + bias + activation (its z operator
  // has no public creator): the same chain, through the same fusion solvers.
  std::vector<FusionOp> ops;
  FusionOp c;
  c.kind = FusionOpKind::ConvForward;
  c.in = *a.x_desc;
  c.w = *a.w_desc;
  c.conv = *a.conv;
  c.out = *a.y_desc;
  {
    const ConvProblem p(ConvDirection::Forward, c.in, c.w, c.conv, c.out);  // checks y too
  }
  ops.push_back(c);
  if (a.z != nullptr) {
    FusionOp z;
    z.kind = FusionOpKind::TensorScaleAdd;
    z.index = 1;
    z.in = z.out = *a.y_desc;
    z.param = *a.z_desc;
    ops.push_back(z);
  }
  check_bias(*a.bias_desc, *a.y_desc, "biasDesc");
  FusionOp bias;
  bias.kind = FusionOpKind::BiasForward;
  bias.in = bias.out = *a.y_desc;
  bias.param = *a.bias_desc;
  ops.push_back(bias);
  FusionOp act;
  act.kind = FusionOpKind::ActivForward;
  act.in = act.out = *a.y_desc;
  act.activ_mode = a.activation.mode;
  ops.push_back(act);
  for (size_t i = 0; i < ops.size(); ++i)
    ops[i].index = static_cast<int>(i);
  const FusionProblem problem(std::move(ops), a.algo, false, a.alpha1 != 1.0f);

  FusionOpArgs conv_args, z_args, bias_args, act_args;
  conv_args.w = a.w;
  conv_args.conv_alpha = a.alpha1;
  z_args.z = a.z;
  z_args.z_alpha = a.alpha2;
  bias_args.bias = a.bias;
  act_args.activ_alpha = a.activation.alpha;
  act_args.activ_beta = a.activation.beta;
  act_args.activ_gamma = a.activation.gamma;
  FusionBuffers b;
  b.in = a.x;
  b.out = a.y;
  b.args.conv = &conv_args;
  b.args.residual = a.z ? &z_args : nullptr;
  b.args.bias = &bias_args;
  b.args.activ = &act_args;

  const FusionSolverEntry& e = select_fusion_solver(handle, problem);
  const FusionInvoker inv = e.solver->compile(handle, problem);
  ANYDNN_LOG_I(handle.config(), "miopenConvolutionBiasActivationForward "
                                    << problem.key() << ": " << e.solver->name() << " ("
                                    << inv.detail << ")");
  // The caller's workspace when it is large enough, else one of our own.
  DeviceBuffer own;
  if (inv.workspace_size > 0 && (a.workspace == nullptr || a.workspace_size < inv.workspace_size)) {
    own = handle.backend().allocate(inv.workspace_size);
    b.workspace = own.get();
    b.workspace_size = inv.workspace_size;
  } else {
    b.workspace = a.workspace;
    b.workspace_size = a.workspace_size;
  }
  inv.run(handle, b);
}

}  // namespace anydnn
