#include "find2/find2_problem.hpp"

#include <sstream>

#include "core/errors.hpp"
#include "find2/operator_adapter.hpp"

namespace anydnn::find2 {

namespace {

struct ArgumentName {
  miopenTensorArgumentId_t id;
  const char* name;
};

// Every id of MIOpen's miopenTensorArgumentId_t.
constexpr ArgumentName kArgumentNames[] = {
    {miopenTensorArgumentIdInvalid, "miopenTensorArgumentIdInvalid"},
    {miopenTensorConvolutionX, "miopenTensorConvolutionX"},
    {miopenTensorConvolutionW, "miopenTensorConvolutionW"},
    {miopenTensorConvolutionY, "miopenTensorConvolutionY"},
    {miopenTensorMhaK, "miopenTensorMhaK"},
    {miopenTensorMhaQ, "miopenTensorMhaQ"},
    {miopenTensorMhaV, "miopenTensorMhaV"},
    {miopenTensorMhaDescaleK, "miopenTensorMhaDescaleK"},
    {miopenTensorMhaDescaleQ, "miopenTensorMhaDescaleQ"},
    {miopenTensorMhaDescaleV, "miopenTensorMhaDescaleV"},
    {miopenTensorMhaDescaleS, "miopenTensorMhaDescaleS"},
    {miopenTensorMhaScaleS, "miopenTensorMhaScaleS"},
    {miopenTensorMhaScaleO, "miopenTensorMhaScaleO"},
    {miopenTensorMhaDropoutProbability, "miopenTensorMhaDropoutProbability"},
    {miopenTensorMhaDropoutSeed, "miopenTensorMhaDropoutSeed"},
    {miopenTensorMhaDropoutOffset, "miopenTensorMhaDropoutOffset"},
    {miopenTensorMhaO, "miopenTensorMhaO"},
    {miopenTensorMhaAmaxO, "miopenTensorMhaAmaxO"},
    {miopenTensorMhaAmaxS, "miopenTensorMhaAmaxS"},
    {miopenTensorMhaM, "miopenTensorMhaM"},
    {miopenTensorMhaZInv, "miopenTensorMhaZInv"},
    {miopenTensorMhaDO, "miopenTensorMhaDO"},
    {miopenTensorMhaDescaleO, "miopenTensorMhaDescaleO"},
    {miopenTensorMhaDescaleDO, "miopenTensorMhaDescaleDO"},
    {miopenTensorMhaDescaleDS, "miopenTensorMhaDescaleDS"},
    {miopenTensorMhaScaleDS, "miopenTensorMhaScaleDS"},
    {miopenTensorMhaScaleDQ, "miopenTensorMhaScaleDQ"},
    {miopenTensorMhaScaleDK, "miopenTensorMhaScaleDK"},
    {miopenTensorMhaScaleDV, "miopenTensorMhaScaleDV"},
    {miopenTensorMhaDQ, "miopenTensorMhaDQ"},
    {miopenTensorMhaDK, "miopenTensorMhaDK"},
    {miopenTensorMhaDV, "miopenTensorMhaDV"},
    {miopenTensorMhaAmaxDQ, "miopenTensorMhaAmaxDQ"},
    {miopenTensorMhaAmaxDK, "miopenTensorMhaAmaxDK"},
    {miopenTensorMhaAmaxDV, "miopenTensorMhaAmaxDV"},
    {miopenTensorMhaAmaxDS, "miopenTensorMhaAmaxDS"},
    {miopenTensorMhaBias, "miopenTensorMhaBias"},
    {miopenTensorActivationX, "miopenTensorActivationX"},
    {miopenTensorActivationY, "miopenTensorActivationY"},
    {miopenTensorActivationDX, "miopenTensorActivationDX"},
    {miopenTensorActivationDY, "miopenTensorActivationDY"},
    {miopenTensorBiasX, "miopenTensorBiasX"},
    {miopenTensorBiasY, "miopenTensorBiasY"},
    {miopenTensorBias, "miopenTensorBias"},
    {miopenTensorSoftmaxX, "miopenTensorSoftmaxX"},
    {miopenTensorSoftmaxY, "miopenTensorSoftmaxY"},
    {miopenTensorSoftmaxDX, "miopenTensorSoftmaxDX"},
    {miopenTensorSoftmaxDY, "miopenTensorSoftmaxDY"},
    {miopenTensorBatchnormX, "miopenTensorBatchnormX"},
    {miopenTensorBatchnormY, "miopenTensorBatchnormY"},
    {miopenTensorBatchnormRunningMean, "miopenTensorBatchnormRunningMean"},
    {miopenTensorBatchnormRunningVariance, "miopenTensorBatchnormRunningVariance"},
    {miopenTensorBatchnormSavedMean, "miopenTensorBatchnormSavedMean"},
    {miopenTensorBatchnormSavedVariance, "miopenTensorBatchnormSavedVariance"},
    {miopenTensorBatchnormScale, "miopenTensorBatchnormScale"},
    {miopenTensorBatchnormScaleDiff, "miopenTensorBatchnormScaleDiff"},
    {miopenTensorBatchnormEstimatedMean, "miopenTensorBatchnormEstimatedMean"},
    {miopenTensorBatchnormEstimatedVariance, "miopenTensorBatchnormEstimatedVariance"},
    {miopenTensorBatchnormBias, "miopenTensorBatchnormBias"},
    {miopenTensorBatchnormBiasDiff, "miopenTensorBatchnormBiasDiff"},
    {miopenTensorBatchnormDX, "miopenTensorBatchnormDX"},
    {miopenTensorBatchnormDY, "miopenTensorBatchnormDY"},
    {miopenTensorArgumentIsScalar, "miopenTensorArgumentIsScalar"},
    {miopenTensorMhaMask, "miopenTensorMhaMask"},
    {miopenScalarBatchnormExpAvgFactor, "miopenScalarBatchnormExpAvgFactor"},
    {miopenScalarBatchnormEpsilon, "miopenScalarBatchnormEpsilon"},
};

void describe_tensor(std::ostream& os, const TensorDescriptor& t) {
  const auto list = [&](const std::vector<size_t>& v) {
    os << "{";
    for (size_t i = 0; i < v.size(); ++i)
      os << (i ? ", " : "") << v[i];
    os << "}";
  };
  list(t.lens());
  os << ", ";
  list(t.strides());
  os << ", type " << static_cast<int>(t.type());
}

void describe_operator(std::ostream& os, const OperatorDescriptor& op) {
  const auto list = [&](const std::vector<int>& v) {
    os << "{";
    for (size_t i = 0; i < v.size(); ++i)
      os << (i ? ", " : "") << v[i];
    os << "}";
  };
  switch (static_cast<OperatorKind>(op.index())) {
    case OperatorKind::Convolution: {
      const auto& c = std::get<ConvolutionDescriptor>(op);
      os << "convolution(" << (c.mode() == miopenTranspose ? "transpose, " : "") << "pads ";
      list(c.pads());
      os << ", strides ";
      list(c.strides());
      os << ", dilations ";
      list(c.dilations());
      os << ", groups " << c.group_count();
      if (c.mode() == miopenTranspose) {
        os << ", output pads ";
        list(c.trans_output_pads());
      }
      os << ")";
      break;
    }
    case OperatorKind::Activation: {
      const auto& a = std::get<ActivMode>(op);
      os << "activation(mode " << static_cast<int>(a.mode) << ", " << a.alpha << ", " << a.beta
         << ", " << a.gamma << ")";
      break;
    }
    case OperatorKind::Bias:
      os << "bias";
      break;
    case OperatorKind::Softmax: {
      const auto& s = std::get<SoftmaxOperator>(op);
      os << "softmax(alpha " << s.alpha << ", beta " << s.beta << ", algorithm "
         << static_cast<int>(s.algorithm) << ", mode " << static_cast<int>(s.mode) << ")";
      break;
    }
    case OperatorKind::Mha:
      os << "mha(scale " << std::get<MhaOperator>(op).scale << ")";
      break;
    case OperatorKind::Batchnorm: {
      const auto& b = std::get<BatchnormOperator>(op);
      os << "batchnorm(mode " << static_cast<int>(b.mode) << ", running mean/variance "
         << (b.running_mean_variance ? 1 : 0) << ")";
      break;
    }
  }
}

}  // namespace

const char* operator_kind_name(OperatorKind kind) {
  switch (kind) {
    case OperatorKind::Convolution:
      return "convolution";
    case OperatorKind::Activation:
      return "activation";
    case OperatorKind::Bias:
      return "bias";
    case OperatorKind::Softmax:
      return "softmax";
    case OperatorKind::Mha:
      return "mha";
    case OperatorKind::Batchnorm:
      return "batchnorm";
  }
  return "unknown";
}

std::string tensor_argument_name(miopenTensorArgumentId_t id) {
  for (const auto& n : kArgumentNames)
    if (n.id == id) return n.name;
  return "miopenTensorArgumentId(" + std::to_string(static_cast<uint32_t>(id)) + ")";
}

bool is_scalar_argument(miopenTensorArgumentId_t id) {
  return (static_cast<uint32_t>(id) & static_cast<uint32_t>(miopenTensorArgumentIsScalar)) != 0;
}

const char* direction_name(miopenProblemDirection_t d) {
  switch (d) {
    case miopenProblemDirectionForward:
      return "forward";
    case miopenProblemDirectionBackward:
      return "backward";
    case miopenProblemDirectionBackwardWeights:
      return "backward weights";
    case miopenProblemDirectionInference:
      return "inference";
  }
  return "unknown";
}

OperatorProblem::OperatorProblem(OperatorDescriptor op, miopenProblemDirection_t direction)
    : op_(std::move(op)), direction_(direction) {
  bool ok = false;
  switch (kind()) {
    case OperatorKind::Convolution:
      ok = direction == miopenProblemDirectionForward ||
           direction == miopenProblemDirectionBackward ||
           direction == miopenProblemDirectionBackwardWeights;
      break;
    case OperatorKind::Batchnorm:
      ok = direction == miopenProblemDirectionForward ||
           direction == miopenProblemDirectionBackward ||
           direction == miopenProblemDirectionInference;
      break;
    default:
      ok =
          direction == miopenProblemDirectionForward || direction == miopenProblemDirectionBackward;
      break;
  }
  ANYDNN_CHECK_BADPARM(ok, operator_kind_name(kind())
                               << " problems have no " << direction_name(direction)
                               << " direction (direction = " << static_cast<int>(direction) << ")");
}

const TensorDescriptor& OperatorProblem::tensor(miopenTensorArgumentId_t id) const {
  const auto it = tensors_.find(id);
  ANYDNN_CHECK(it != tensors_.end(), miopenStatusInvalidValue,
               "Problem is missing " << tensor_argument_name(id) << " tensor descriptor.");
  return it->second;
}

void OperatorProblem::set_tensor(miopenTensorArgumentId_t id, const TensorDescriptor& desc) {
  ANYDNN_CHECK_BADPARM(!is_scalar_argument(id),
                       tensor_argument_name(id)
                           << " is a scalar argument: it takes no tensor descriptor (pass its "
                              "value to miopenRunSolution)");
  ANYDNN_CHECK_BADPARM(operator_adapter(kind()).takes(direction_, id),
                       tensor_argument_name(id)
                           << " is not an argument of a " << direction_name(direction_) << " "
                           << operator_kind_name(kind()) << " problem");
  ANYDNN_CHECK_BADPARM(desc.is_set(),
                       "the descriptor for " << tensor_argument_name(id) << " has not been set");
  // MIOpen keeps the first descriptor and ignores a second one silently; a second call is
  // almost certainly a mistake, so it is refused (the problem keeps the first).
  ANYDNN_CHECK_BADPARM(!has(id), tensor_argument_name(id) << " is already set for this problem");
  tensors_.emplace(id, desc);
}

miopenTensorArgumentId_t OperatorProblem::input_id() const {
  const bool fwd = direction_ == miopenProblemDirectionForward;
  switch (kind()) {
    case OperatorKind::Convolution:
      return fwd ? miopenTensorConvolutionX : miopenTensorConvolutionY;
    case OperatorKind::Activation:
      return fwd ? miopenTensorActivationX : miopenTensorActivationDY;
    case OperatorKind::Bias:
      return fwd ? miopenTensorBiasX : miopenTensorBiasY;
    case OperatorKind::Batchnorm:
      return direction_ == miopenProblemDirectionBackward ? miopenTensorBatchnormDY
                                                          : miopenTensorBatchnormX;
    case OperatorKind::Mha:
      return miopenTensorMhaK;
    case OperatorKind::Softmax:
      return miopenTensorSoftmaxX;
  }
  return miopenTensorArgumentIdInvalid;
}

miopenTensorArgumentId_t OperatorProblem::output_id() const {
  const bool fwd = direction_ == miopenProblemDirectionForward;
  switch (kind()) {
    case OperatorKind::Convolution:
      return fwd ? miopenTensorConvolutionY : miopenTensorConvolutionX;
    case OperatorKind::Activation:
      return fwd ? miopenTensorActivationY : miopenTensorActivationDX;
    case OperatorKind::Bias:
      return fwd ? miopenTensorBiasY : miopenTensorBiasX;
    case OperatorKind::Batchnorm:
      return direction_ == miopenProblemDirectionBackward ? miopenTensorBatchnormDX
                                                          : miopenTensorBatchnormY;
    case OperatorKind::Mha:
      return miopenTensorMhaO;
    case OperatorKind::Softmax:
      return miopenTensorSoftmaxY;
  }
  return miopenTensorArgumentIdInvalid;
}

void OperatorProblem::derive_output() {
  if (!has(input_id()) || has(output_id())) return;
  const TensorDescriptor& in = tensor(input_id());
  if (kind() == OperatorKind::Convolution) {
    // Only the forward output follows from the input and the weights (MIOpen computes it here
    // but, by a slip, never stores it).
    if (direction_ != miopenProblemDirectionForward || !has(miopenTensorConvolutionW)) return;
    const auto& conv = op_as<ConvolutionDescriptor>();
    tensors_.emplace(output_id(),
                     TensorDescriptor::with_layout(
                         in.type(), in.layout(conv.spatial_dims() == 3 ? "NCDHW" : "NCHW"),
                         conv.forward_output_lens(in, tensor(miopenTensorConvolutionW))));
    return;
  }
  tensors_.emplace(output_id(), in);
}

Problem::Problem(std::vector<OperatorProblem> parts, bool fused)
    : parts_(std::move(parts)), fused_(fused) {
  ANYDNN_CHECK_BADPARM(!parts_.empty(), "a problem has at least one operator");
  ANYDNN_CHECK_BADPARM(fused_ || parts_.size() == 1, "an unfused problem has one operator");
}

OperatorProblem& Problem::single() {
  ANYDNN_CHECK_BADPARM(!fused_,
                       "Attempt to set tensor descriptor of a fused problem (its "
                       "tensors are those of the problems fused into it)");
  return parts_.front();
}

const OperatorProblem& Problem::single() const {
  ANYDNN_CHECK_BADPARM(!fused_, "the problem is fused: it has no single operator");
  return parts_.front();
}

void Problem::fuse(const Problem& other) {
  // MIOpen's FusedProblem turns into a fusion plan, which has no softmax or MHA operator.
  const std::vector<OperatorProblem>* both[] = {&parts_, &other.parts_};
  for (const auto* parts : both)
    for (const auto& part : *parts)
      ANYDNN_CHECK(part.kind() != OperatorKind::Softmax && part.kind() != OperatorKind::Mha,
                   miopenStatusUnsupportedOp,
                   operator_kind_name(part.kind())
                       << " problems cannot be fused (MIOpen fuses convolution, bias, activation "
                          "and batch norm)");
  // No chain MIOpen fuses has more than four operators (conv, bias, BN, activation); a bound
  // keeps a problem fused with itself over and over from doubling without end (found by
  // fuzz_find2: 2^k operators, gigabytes), while leaving room for every real chain.
  constexpr size_t kMaxFusedOperators = 8;
  ANYDNN_CHECK(parts_.size() + other.parts_.size() <= kMaxFusedOperators, miopenStatusUnsupportedOp,
               "a fused problem holds at most " << kMaxFusedOperators << " operators (this one "
                                                << parts_.size() << " + " << other.parts_.size()
                                                << "; MIOpen's fusion chains have at most four)");
  // Work on a copy: a descriptor that does not fit leaves problem1 as it was.
  std::vector<OperatorProblem> parts = parts_;
  parts.insert(parts.end(), other.parts_.begin(), other.parts_.end());
  for (size_t i = 0; i < parts.size(); ++i) {
    OperatorProblem& cur = parts[i];
    if (i > 0 && !cur.has(cur.input_id())) {
      const OperatorProblem& prev = parts[i - 1];
      if (prev.has(prev.output_id()))
        cur.tensors_.emplace(cur.input_id(), prev.tensor(prev.output_id()));
    }
    cur.derive_output();
  }
  parts_ = std::move(parts);
  fused_ = true;
}

std::map<miopenTensorArgumentId_t, TensorDescriptor> Problem::run_tensors() const {
  if (!fused_) return parts_.front().tensors();
  std::map<miopenTensorArgumentId_t, TensorDescriptor> out;
  const OperatorProblem& first = parts_.front();
  const OperatorProblem& last = parts_.back();
  out.emplace(first.input_id(), first.tensor(first.input_id()));
  out.emplace(last.output_id(), last.tensor(last.output_id()));
  for (const auto& part : parts_)
    for (const auto& [id, desc] : part.tensors())
      if (id != part.input_id() && id != part.output_id()) out.emplace(id, desc);
  return out;
}

std::string Problem::describe() const {
  std::ostringstream os;
  for (size_t i = 0; i < parts_.size(); ++i) {
    const OperatorProblem& p = parts_[i];
    if (i > 0) os << " + ";
    describe_operator(os, p.op());
    os << " " << direction_name(p.direction()) << " {";
    bool first = true;
    for (const auto& [id, desc] : p.tensors()) {
      os << (first ? "" : ", ") << tensor_argument_name(id) << ": ";
      describe_tensor(os, desc);
      first = false;
    }
    os << "}";
  }
  return os.str();
}

}  // namespace anydnn::find2
