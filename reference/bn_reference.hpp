// Naive batch-normalization reference with double arithmetic and exact two-pass statistics:
// the test oracle and MIOpenDriver's -V 1 check. It follows MIOpen's definitions
// (shared/reference/miopen.md §e) and shares no code with the library's solvers.
//   groups: spatial = one per channel over (n, d, h, w); per-activation = one per (c, d, h, w)
//   over n. M = values per group. Parameters are in group order (c, or c*D*H*W + s).
#pragma once

#include <miopen/miopen.h>

#include <vector>

#include "conv_reference.hpp"  // TensorView, to_logical

namespace anydnn::ref {

struct BnForwardResult {
  std::vector<double> y;                          // packed logical order
  std::vector<double> mean, var, invstd;          // batch statistics (var biased)
  std::vector<double> running_mean, running_var;  // updated running statistics
};

// Training: normalises with the batch statistics; running_* = (1-f)*old + f*batch (variance
// unbiased, M/(M-1), biased when M = 1).
BnForwardResult bn_forward_training(const TensorView& x, miopenBatchNormMode_t mode,
                                    const std::vector<double>& scale,
                                    const std::vector<double>& bias, double epsilon,
                                    double exp_avg_factor, const std::vector<double>& old_mean,
                                    const std::vector<double>& old_var);

// Inference with estimates: y = scale*(x - est_mean)/sqrt(est_var + eps) + bias. With empty
// estimates, the batch statistics are used (MIOpen's behaviour for null estimate pointers).
std::vector<double> bn_forward_inference(const TensorView& x, miopenBatchNormMode_t mode,
                                         const std::vector<double>& scale,
                                         const std::vector<double>& bias,
                                         const std::vector<double>& est_mean,
                                         const std::vector<double>& est_var, double epsilon);

struct BnBackwardResult {
  std::vector<double> dx, dscale, dbias;
};

// With saved statistics (both non-empty) uses them; else recomputes mean and
// invstd = 1/sqrt(var + eps) from x.
BnBackwardResult bn_backward(const TensorView& x, const TensorView& dy, miopenBatchNormMode_t mode,
                             const std::vector<double>& scale, double epsilon,
                             const std::vector<double>& saved_mean,
                             const std::vector<double>& saved_invstd);

}  // namespace anydnn::ref
