// Naive double reference of miopenReduceTensor, the oracle of the tests and of MIOpenDriver
// reduce -V 1. Written from MIOpen's host reference (driver/miopen_Reduction.hpp with
// test/cpu_reduce_util.hpp), not from the library's plan or solvers: for every output (C's
// logical index) the reduced elements of A are visited in row-major order of the reduced
// dimensions (those where C's length is 1), each through the pre-op (|x| for NORM1 / AMAX, x*x
// for NORM2), combined from the identity (0; MUL 1; MIN the compute type's max, MAX its
// lowest, AMAX 0) by + / * or a strict comparison (MIN acc > x, MAX / AMAX acc < x; with
// PROPAGATE a NaN always replaces, index too), then AVG divides by the reduced count and NORM2
// takes the square root; the result is acc * alpha (alpha != 1) + beta * C (beta != 0 only).
// Indices are the flattened position within the reduced dimensions.
#pragma once

#include <miopen/miopen.h>

#include <vector>

#include "conv_reference.hpp"  // TensorView, load_element

namespace anydnn::ref {

struct ReduceResult {
  std::vector<double> c;     // C's values in packed logical order
  std::vector<int> indices;  // per output in packed logical order (empty without indices)
};

// `c` is C's old contents (read when beta != 0); `comp_max` the compute type's largest value
// (FLT_MAX for the float types: MIN's identity, MAX's is its negative).
ReduceResult reduce_tensor(miopenReduceTensorOp_t op, bool propagate_nan, bool indices,
                           const TensorView& a, const TensorView& c, double alpha, double beta,
                           double comp_max);

}  // namespace anydnn::ref
