// Find 2.0 problems (miopenProblem_t): an operator descriptor, a direction and one tensor
// descriptor per argument id, or a fused list of such problems (miopenFuseProblems). Both the
// operator and the tensors are copies, taken when the problem is created and when a tensor is
// set, as MIOpen takes them. Which ids an operator takes is its adapter's answer
// (find2/operator_adapter.hpp); what a problem *means* (the convolution, softmax, ... it
// describes) is decided by the adapter when Find or a run needs it.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "activation/activation_problem.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn::find2 {

// MIOpen's operator variant order (its serialised "primitive" index): keep it.
enum class OperatorKind : uint8_t {
  Convolution = 0,
  Activation = 1,
  Bias = 2,
  Softmax = 3,
  Mha = 4,
  Batchnorm = 5,
};
const char* operator_kind_name(OperatorKind kind);  // "convolution", "activation", ...

struct BiasOperator {
  bool operator==(const BiasOperator&) const = default;
};
// miopenSetSoftmaxDescriptor's arguments.
struct SoftmaxOperator {
  float alpha = 1.0f, beta = 0.0f;
  miopenSoftmaxAlgorithm_t algorithm = MIOPEN_SOFTMAX_ACCURATE;
  miopenSoftmaxMode_t mode = MIOPEN_SOFTMAX_MODE_CHANNEL;
  bool operator==(const SoftmaxOperator&) const = default;
};
// miopenSetMhaDescriptor's argument.
struct MhaOperator {
  float scale = 1.0f;
  bool operator==(const MhaOperator&) const = default;
};
// miopenCreateBatchnormProblem's arguments.
struct BatchnormOperator {
  miopenBatchNormMode_t mode = miopenBNSpatial;
  bool running_mean_variance = false;
  bool operator==(const BatchnormOperator&) const = default;
};

// Indexed by OperatorKind.
using OperatorDescriptor = std::variant<ConvolutionDescriptor, ActivMode, BiasOperator,
                                        SoftmaxOperator, MhaOperator, BatchnormOperator>;

// "miopenTensorConvolutionX", ... ("miopenTensorArgumentId(<n>)" for values MIOpen lacks).
std::string tensor_argument_name(miopenTensorArgumentId_t id);
bool is_scalar_argument(miopenTensorArgumentId_t id);
const char* direction_name(miopenProblemDirection_t d);  // "forward", "backward", ...

// The problem of one operator.
class OperatorProblem {
 public:
  // BadParm when the direction is not one of MIOpen's or not one the operator has (convolution:
  // forward, backward, backward weights; batch norm: forward (training), backward, inference;
  // the others forward and backward).
  OperatorProblem(OperatorDescriptor op, miopenProblemDirection_t direction);

  OperatorKind kind() const { return static_cast<OperatorKind>(op_.index()); }
  const OperatorDescriptor& op() const { return op_; }
  template <class T>
  const T& op_as() const {
    return std::get<T>(op_);
  }
  miopenProblemDirection_t direction() const { return direction_; }
  const std::map<miopenTensorArgumentId_t, TensorDescriptor>& tensors() const { return tensors_; }
  bool has(miopenTensorArgumentId_t id) const { return tensors_.count(id) != 0; }
  // The descriptor set for `id`: InvalidValue "Problem is missing <id> tensor descriptor."
  // (MIOpen's status and words) when none was.
  const TensorDescriptor& tensor(miopenTensorArgumentId_t id) const;

  // miopenSetProblemTensorDescriptor: BadParm for a scalar id, an id the operator does not take
  // in this direction, an id already set, or a descriptor that was never set.
  void set_tensor(miopenTensorArgumentId_t id, const TensorDescriptor& desc);

  // MIOpen's GetInputId / GetOutputId: the tensor a fused chain passes along (convolution X / Y,
  // activation X / Y forward and DY / DX backward, bias X / Y, batch norm X / Y and DY / DX,
  // softmax X / Y, MHA K / O).
  miopenTensorArgumentId_t input_id() const;
  miopenTensorArgumentId_t output_id() const;

 private:
  friend class Problem;
  // MIOpen's CalculateOutput: the output like the input (convolution: its forward output).
  void derive_output();

  OperatorDescriptor op_;
  miopenProblemDirection_t direction_;
  std::map<miopenTensorArgumentId_t, TensorDescriptor> tensors_;
};

// What a miopenProblem_t holds: one operator's problem, or (fused) several applied in order.
class Problem {
 public:
  explicit Problem(OperatorProblem single) { parts_.push_back(std::move(single)); }
  Problem(std::vector<OperatorProblem> parts, bool fused);  // a loaded blob's (BadParm if empty)

  bool fused() const { return fused_; }
  const std::vector<OperatorProblem>& parts() const { return parts_; }
  // The problem of an unfused one (BadParm for a fused problem, whose tensors are its parts').
  OperatorProblem& single();
  const OperatorProblem& single() const;

  // miopenFuseProblems: appends `other`'s parts, then fills each part's unset input from the
  // previous part's output and each unset output from the part's input (MIOpen's
  // PropagateDescriptors).
  void fuse(const Problem& other);

  miopenTensorArgumentId_t input_id() const { return parts_.front().input_id(); }
  miopenTensorArgumentId_t output_id() const { return parts_.back().output_id(); }

  // The arguments a run takes: every tensor of an unfused problem; for a fused one the chain's
  // input and output and each part's other tensors (the tensors passed between parts are
  // internal), as MIOpen's FusedProblem::MakeInvokeParams takes them. Scalars are the adapters'.
  std::map<miopenTensorArgumentId_t, TensorDescriptor> run_tensors() const;

  // "convolution backward {X: ..., W: ..., Y: ...}", fused parts joined by " + ".
  std::string describe() const;

 private:
  std::vector<OperatorProblem> parts_;
  bool fused_ = false;
};

}  // namespace anydnn::find2
