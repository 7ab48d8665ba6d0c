// A batch-normalization problem: the descriptors and flags of one BN call, validated, with its
// canonical string in MIOpenDriver `bnorm` syntax (log field, test name, repro line):
//   "bnorm -n 32 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1 --layout NCHW"
// -s / -r keep the driver's meaning (save mean and inverse std / update or use running
// statistics), unlike MIOpen's LogCmdBNorm, which prints them swapped.
#pragma once

#include <miopen/miopen.h>

#include <string>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

enum class BnDirection { ForwardTraining, ForwardInference, Backward };

// The descriptors of a call, named by role. For the V1 calls all four parameter descriptors
// are the single bnScaleBiasMeanVarDesc (bnScaleBiasDiffDesc for backward).
struct BnDescriptors {
  const TensorDescriptor* x = nullptr;
  const TensorDescriptor* y = nullptr;   // y (forward) or dy (backward)
  const TensorDescriptor* dx = nullptr;  // backward only
  const TensorDescriptor* scale = nullptr;
  const TensorDescriptor* bias = nullptr;
  const TensorDescriptor* mean = nullptr;  // running / estimated / saved mean
  const TensorDescriptor* var = nullptr;   // running / estimated variance, saved inverse std
};

class BnProblem {
 public:
  // Throws BadParm (with a one-line reason) for descriptors that do not describe one BN call
  // and NotImplemented for valid but unsupported ones (e.g. integer data).
  //   save:    forward training writes the saved mean / inverse std; backward uses them
  //   running: forward training updates the running mean / variance; inference uses the
  //            estimated ones (else it normalises with the batch's own statistics)
  BnProblem(BnDirection direction, miopenBatchNormMode_t mode, const BnDescriptors& d,
            double epsilon, double exp_avg_factor, bool save, bool running);

  BnDirection direction() const { return direction_; }
  miopenBatchNormMode_t mode() const { return mode_; }
  bool spatial() const { return mode_ == miopenBNSpatial; }
  const TensorDescriptor& x() const { return x_; }
  const TensorDescriptor& y() const { return y_; }  // dy for backward
  const TensorDescriptor& dx() const { return dx_; }
  const TensorDescriptor& scale() const { return scale_; }
  const TensorDescriptor& bias() const { return bias_; }
  const TensorDescriptor& mean() const { return mean_; }
  const TensorDescriptor& var() const { return var_; }
  miopenDataType_t data_type() const { return x_.type(); }
  size_t batch() const { return x_.lens()[0]; }
  size_t channels() const { return x_.lens()[1]; }
  size_t spatial_size() const { return spatial_; }  // D*H*W
  // Statistics groups (C spatial, C*D*H*W per-activation) and values per group (M).
  size_t groups() const { return spatial() ? channels() : channels() * spatial_; }
  size_t group_size() const { return spatial() ? batch() * spatial_ : batch(); }
  double epsilon() const { return epsilon_; }
  double exp_avg_factor() const { return exp_avg_factor_; }
  bool save() const { return save_; }
  bool running() const { return running_; }
  const std::string& layout() const { return layout_; }

  const std::string& key() const { return key_; }
  // The driver base for the data and parameter types: bnorm, bnormfp16, bnormfp16fp32,
  // bnormbfp16fp32 (and bnormbfp16, which MIOpen's log prints but its driver lacks).
  static std::string driver_base(miopenDataType_t data, miopenDataType_t param);

 private:
  BnDirection direction_;
  miopenBatchNormMode_t mode_;
  TensorDescriptor x_, y_, dx_, scale_, bias_, mean_, var_;
  size_t spatial_ = 1;
  double epsilon_, exp_avg_factor_;
  bool save_, running_;
  std::string layout_, key_;
};

// MIOpen's derived descriptor: 1xCx1x1(x1) for spatial, 1xCxHxW (1xCxDxHxW) per-activation,
// fp32 for fp16/bf16 data (the mixed mode), packed.
TensorDescriptor derive_bn_descriptor(const TensorDescriptor& x, miopenBatchNormMode_t mode);

}  // namespace anydnn
