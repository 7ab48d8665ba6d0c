// The broadcast plan of one tensor-op call, written once for every backend: the elementwise
// operation, the scalars, and an iteration space with one stride per tensor and dimension. B's
// broadcast dimensions get stride 0, so a kernel never tests for broadcasting; dimensions of
// length 1 are dropped, the rest are ordered by the output's strides (largest first, so the
// last dimension is the one the output is most contiguous in) and merged wherever every tensor
// is contiguous across the pair. A packed NCHW add therefore arrives as one dimension, a
// per-channel bias on NCHW as (N, C, H*W) with B strides (0, 1, 0), and an NCHW -> NHWC
// transform as (N, H*W, C) with the input's strides permuted.
//
// The plan is plain data (fixed arrays, no pointers) so CUDA kernels take it by value.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>

namespace anydnn {

// What one element of the output becomes (c is C or y, a is A or x, b is B).
enum class ElementwiseOp : uint8_t {
  Add,    // c = (alpha1 a + alpha2 b) + beta c
  Mul,    // c = (alpha1 a * alpha2 b) + beta c
  Min,    // c = ((alpha1 a < alpha2 b) ? alpha1 a : alpha2 b) + beta c   (MIOpen's NaN rule)
  Max,    // c = ((alpha1 a > alpha2 b) ? alpha1 a : alpha2 b) + beta c
  Copy,   // c = alpha1 a + beta c        (miopenTransformTensor)
  Fill,   // c = value                    (miopenSetTensor)
  Scale,  // c = alpha1 c                 (miopenScaleTensor)
};

const char* elementwise_op_name(ElementwiseOp op);

struct TensorOpPlan {
  static constexpr int kMaxDims = 8;

  ElementwiseOp op = ElementwiseOp::Copy;
  miopenDataType_t type = miopenFloat;  // every tensor of the call has it
  int ndim = 0;                         // >= 1; a single element is one dimension of length 1
  size_t lens[kMaxDims] = {};
  // Strides in elements per tensor; a tensor the op does not read has all strides 0.
  size_t a[kMaxDims] = {}, b[kMaxDims] = {}, c[kMaxDims] = {};
  size_t count = 0;  // product of lens
  // Scalars in the compute type's precision (fp32 for the float types, else double).
  double alpha1 = 1.0, alpha2 = 1.0, beta = 0.0;
  // Fill: the value's bytes in the data type (only the type's size is used).
  uint64_t fill_bits = 0;

  bool reads_a() const { return op != ElementwiseOp::Fill && op != ElementwiseOp::Scale; }
  bool reads_b() const { return op <= ElementwiseOp::Max; }
  // The old output takes part (beta != 0): beta == 0 never reads C, so NaN there is ignored.
  bool reads_c() const {
    return op == ElementwiseOp::Scale || (op != ElementwiseOp::Fill && beta != 0.0);
  }
  size_t inner() const { return lens[ndim - 1]; }
  // The last dimension is unit-stride in the output and every tensor read (B may broadcast).
  bool inner_contiguous() const {
    const int i = ndim - 1;
    return c[i] == 1 && (!reads_a() || a[i] == 1) && (!reads_b() || b[i] <= 1);
  }
  size_t rows() const { return count / inner(); }
};

// One tensor's shape for planning: lengths and strides, rank <= kMaxDims. `broadcast`: lengths
// may be 1 where the output's are not (B of miopenOpTensor), which gives stride 0 there.
struct PlanOperand {
  const size_t* lens = nullptr;
  const size_t* strides = nullptr;
};

// The plan for an output of `rank` dimensions `lens` / `c_strides` and the operands the op
// reads (null for the others); operand lengths are the output's or (for b) 1. Scalars as given.
TensorOpPlan plan_tensor_op(ElementwiseOp op, miopenDataType_t type, int rank, const size_t* lens,
                            const size_t* c_strides, const PlanOperand* a, const PlanOperand* b);

}  // namespace anydnn
