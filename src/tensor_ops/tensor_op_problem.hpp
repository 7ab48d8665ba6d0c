// A tensor-op problem: one miopenOpTensor / SetTensor / ScaleTensor / TransformTensor call,
// validated with MIOpen's rules (src/ocl/tensorocl.cpp), its scalars read as MIOpen reads them,
// and its broadcast plan (tensor_ops/tensor_op_plan.hpp). Its canonical key is the MIOpenDriver
// `tensorop` command MIOpen's LogCmdTensorOp prints:
//   "tensorop -A 1.000000 -B 1.000000 -G 0.000000 -n 64 -c 3 -H 32 -W 32 -o 2"
// (-o 0 SetTensor, 1 ScaleTensor, 2 + miopenTensorOp_t for OpTensor; a transform logs as an
// add of alpha x and beta y, as MIOpen's does; "tensoropfp16" for half data). The driver knows
// only 4-D tensors: other ranks print their first lengths and fold the rest into -W.
#pragma once

#include <miopen/miopen.h>

#include <string>

#include "core/tensor_descriptor.hpp"
#include "tensor_ops/tensor_op_plan.hpp"

namespace anydnn {

enum class TensorOpKind { Op, Set, Scale, Transform };

class TensorOpProblem {
 public:
  // Each throws with MIOpen's status and a one-line reason: BadParm for null pointers and, as
  // MIOpen, the types Scale rejects; UnknownError where MIOpen throws without a status (shape
  // mismatches, Transform's unsupported types); NotImplemented for what anydnn does not run.
  // Scalars point to host values: OpTensor's three are floats; SetTensor's value and
  // ScaleTensor's alpha are in the tensor's data type; TransformTensor's are compared with 1 and
  // 0 as floats and otherwise read in the data type (all MIOpen's rules).
  static TensorOpProblem op_tensor(miopenTensorOp_t op, const TensorDescriptor& a,
                                   const TensorDescriptor& b, const TensorDescriptor& c,
                                   const void* alpha1, const void* alpha2, const void* beta);
  static TensorOpProblem set_tensor(const TensorDescriptor& y, const void* value);
  static TensorOpProblem scale_tensor(const TensorDescriptor& y, const void* alpha);
  static TensorOpProblem transform_tensor(const TensorDescriptor& x, const TensorDescriptor& y,
                                          const void* alpha, const void* beta);

  TensorOpKind kind() const { return kind_; }
  const TensorOpPlan& plan() const { return plan_; }
  miopenDataType_t data_type() const { return plan_.type; }
  // The descriptors as passed (a: A or x; b: B; c: C or y), for logs and tests.
  const TensorDescriptor& a() const { return a_; }
  const TensorDescriptor& b() const { return b_; }
  const TensorDescriptor& c() const { return c_; }
  // An int8 transform onto more channels (MIOpen's int8 -> int8x4 padding): the whole output is
  // zeroed before the plan copies the input's channels into the first ones.
  bool zero_output_first() const { return zero_first_; }
  // The driver's -v (SetTensor / ScaleTensor) as a double.
  double value() const { return value_; }
  const std::string& key() const { return key_; }

 private:
  TensorOpProblem() = default;
  // abg: the -A -B -G values, or null for SetTensor / ScaleTensor (-v instead).
  void make_key(const TensorDescriptor& first, int o, const double* abg);

  TensorOpKind kind_ = TensorOpKind::Op;
  TensorOpPlan plan_;
  TensorDescriptor a_, b_, c_;
  bool zero_first_ = false;
  double value_ = 0.0;
  std::string key_;
};

// A value of `type` at `p`, as a double (float, half, bfloat16, double, int8, int32, int64).
double read_host_value(const void* p, miopenDataType_t type);

}  // namespace anydnn
