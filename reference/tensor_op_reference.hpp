// Naive double references of MIOpen's tensor ops, the oracle of the tests and of MIOpenDriver
// tensorop -V 1. Written from MIOpen's definitions (include/miopen/miopen.h, its kernels in
// src/kernels/MIOpenTensorKernels.cl), not from the library's plan or solvers:
//   OpTensor   C = op(alpha1 A, alpha2 B) + beta C; B's length 1 broadcasts; beta 0 ignores C;
//              min / max are (x < y ? x : y) and (x > y ? x : y) (so a NaN in alpha1 A yields
//              alpha2 B)
//   Transform  y = alpha x + beta y, per logical index (any strides on either side)
//   Scale      y = alpha y;  Set  y = value
// Views may have any rank (1..8) and strides. Results are y's / C's values in packed logical
// order, exact in double (integer outputs truncated as MIOpen's integer kernels do).
#pragma once

#include <miopen/miopen.h>

#include <vector>

#include "conv_reference.hpp"  // TensorView, load_element, to_logical

namespace anydnn::ref {

std::vector<double> op_tensor(miopenTensorOp_t op, const TensorView& a, const TensorView& b,
                              const TensorView& c, double alpha1, double alpha2, double beta);
std::vector<double> transform_tensor(const TensorView& x, const TensorView& y, double alpha,
                                     double beta);
// MIOpen's int8 channel (de)vectorisation: y has x's shape but for channels (dimension 1);
// y's channel c is x's below min(Cx, Cy) and 0 beyond.
std::vector<double> transform_int8_channels(const TensorView& x, const std::vector<size_t>& y_lens);
std::vector<double> scale_tensor(const TensorView& y, double alpha);

}  // namespace anydnn::ref
