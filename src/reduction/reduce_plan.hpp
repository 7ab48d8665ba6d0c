// The reduce plan of one miopenReduceTensor call, written once for every backend: the op, the
// scalars, and two iteration spaces over A. The invariant dimensions (C's length equals A's and
// is > 1) walk the outputs, with one stride for A and one for C; they are ordered by C's strides
// (largest first) and merged where A and C are both contiguous across the pair, as the
// tensor-op plan does. The reduced dimensions (C's length 1) keep A's logical order, because
// MIOpen's flattened indices and our summation order are row-major over them; length-1 ones are
// dropped and neighbours A walks as one run are merged. A packed NCHW reduction over H and W
// therefore arrives as outputs (N*C) x one unit-stride run of H*W; over N as outputs (C*H*W) x
// reduced (N) with A stride C*H*W.
//
// The plan is plain data (fixed arrays, no pointers) so CUDA kernels take it by value.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>

namespace anydnn {

struct ReducePlan {
  static constexpr int kMaxDims = 8;

  miopenReduceTensorOp_t op = MIOPEN_REDUCE_TENSOR_ADD;
  miopenDataType_t type = miopenFloat;  // A and C
  bool propagate_nan = false;
  bool indices = false;  // MIN / MAX / AMAX with FLATTENED_INDICES: int32 per output
  // Invariant (output) space: >= 1 dimension (one of length 1 when every dimension reduces).
  int out_ndim = 0;
  size_t out_lens[kMaxDims] = {};
  size_t out_a[kMaxDims] = {}, out_c[kMaxDims] = {};
  size_t out_count = 0;
  // Reduced space: >= 1 dimension (one of length 1 when only length-1 dimensions reduce).
  int red_ndim = 0;
  size_t red_lens[kMaxDims] = {};
  size_t red_a[kMaxDims] = {};
  size_t red_count = 0;
  // Scalars in the compute precision (fp32 for the float types, double for double).
  double alpha = 1.0, beta = 0.0;

  // The reduced elements of one output are one unit-stride run of A.
  bool red_contiguous() const { return red_ndim == 1 && (red_a[0] == 1 || red_lens[0] == 1); }
  // beta == 0 never reads C, so NaN there is ignored (MIOpen's reference skips it too).
  bool reads_c() const { return beta != 0.0; }
};

// The plan for A (`rank` lengths / strides) reduced into C (lengths 1 or A's, C's strides).
ReducePlan plan_reduce(miopenReduceTensorOp_t op, miopenDataType_t type, bool propagate_nan,
                       bool indices, int rank, const size_t* a_lens, const size_t* a_strides,
                       const size_t* c_lens, const size_t* c_strides);

}  // namespace anydnn
