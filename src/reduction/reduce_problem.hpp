// A reduction problem: one miopenReduceTensor call (or its size queries), validated with
// MIOpen's rules (src/reducetensor.cpp), its scalars read as MIOpen reads them, and its reduce
// plan (reduction/reduce_plan.hpp). Its canonical key is the MIOpenDriver command MIOpen's
// LogCmdRedux prints:
//   "reducefp -A 1 -B 0 -C 1 -D 64,3,32,32 -I 0 -N 0 -O 0 -R 0,2,3"
// ("reducefp16" / "reducebfp16" / "reducefp64" by A's type; -R lists the dimensions where C's
// length is 1, -C -I -N -O the descriptor's enums as numbers).
#pragma once

#include <miopen/miopen.h>

#include <string>

#include "core/tensor_descriptor.hpp"
#include "reduction/reduce_plan.hpp"

namespace anydnn {

// miopenSetReduceTensorDescriptor's arguments; a new descriptor is ADD, fp32, no NaN
// propagation, no indices, 32-bit indices (MIOpen's default-constructed one).
struct ReduceTensorDesc {
  miopenReduceTensorOp_t op = MIOPEN_REDUCE_TENSOR_ADD;
  miopenDataType_t comp_type = miopenFloat;
  miopenNanPropagation_t nan_opt = MIOPEN_NOT_PROPAGATE_NAN;
  miopenReduceTensorIndices_t indices = MIOPEN_REDUCE_TENSOR_NO_INDICES;
  miopenIndicesType_t indices_type = MIOPEN_32BIT_INDICES;

  // Indices are written: FLATTENED_INDICES and an op that has them (MIN, MAX, AMAX).
  bool needs_indices() const;
};

// miopenSetReduceTensorDescriptor's checks (BadParm for values outside the enums; MIOpen's
// status-less throw, UnknownError, for indices other than 32-bit with FLATTENED_INDICES).
ReduceTensorDesc make_reduce_desc(long long op, long long comp_type, long long nan_opt,
                                  long long indices, long long indices_type);

// The shape checks both size queries make (MIOpen's GetIndicesSize / GetWorkspaceSize):
// UnknownError for a rank mismatch or a C length that is neither 1 nor A's.
void check_reduce_shapes(const TensorDescriptor& a, const TensorDescriptor& c);

// MIOpen's sizes, so a client allocates what it would for MIOpen: indices 4 bytes per output
// when indices are written, else 0; the workspace MIOpen's dynamic reduction asks on a
// wave-64 device (block 256; a multi-block partial buffer when the reduced extent is > 1024,
// plus its 4096-byte descriptor page). anydnn's kernels use no workspace.
size_t reduce_indices_size(const ReduceTensorDesc& d, const TensorDescriptor& a,
                           const TensorDescriptor& c);
size_t reduce_workspace_size(const ReduceTensorDesc& d, const TensorDescriptor& a,
                             const TensorDescriptor& c);

class ReduceProblem {
 public:
  // Throws with MIOpen's status and a one-line reason: BadParm for null scalars; UnknownError
  // where MIOpen throws without a status (rank > 6, shape mismatch, nothing reduced, workspace
  // or indices buffers smaller than the sizes above); NotImplemented for what anydnn does not
  // run (integer or fp8 data, A and C of different types, a compType that is not a float type).
  // alpha / beta point to floats (doubles for double data), as MIOpen reads them.
  ReduceProblem(const ReduceTensorDesc& d, const TensorDescriptor& a, const TensorDescriptor& c,
                const void* alpha, const void* beta, size_t indices_bytes, size_t workspace_bytes);

  const ReduceTensorDesc& desc() const { return desc_; }
  const ReducePlan& plan() const { return plan_; }
  miopenDataType_t data_type() const { return plan_.type; }
  const TensorDescriptor& a() const { return a_; }
  const TensorDescriptor& c() const { return c_; }
  const std::string& key() const { return key_; }

 private:
  ReduceTensorDesc desc_;
  ReducePlan plan_;
  TensorDescriptor a_, c_;
  std::string key_;
};

// The key for `d` reducing a into c with these scalars (also what the driver rebuilds).
std::string reduce_key(const ReduceTensorDesc& d, const TensorDescriptor& a,
                       const TensorDescriptor& c, double alpha, double beta);

}  // namespace anydnn
