// An LRN problem: one miopenLRNForward / miopenLRNBackward call, validated, with its canonical
// string: the line MIOpen's LogCmdLRN prints,
//   "lrn -A 0.001 -B 0.75 -F 1 -H 32 -K 1 -N 5 -W 32 -c 3 -m 1 -n 100"
// (lrnfp16 for half data; -F 2 for backward; the doubles through a default ostream, -m the mode
// as a number). Tensors are 4-D (MIOpen reads n, c, h, w) with any strides here (MIOpen's
// forward takes packed ones only). MIOpen's window of lrnN elements around index i is
// [i - pre_pad, i + pad] with pre_pad = (lrnN - 1) / 2, pad = lrnN - 1 - pre_pad (clipped to
// the tensor), and
//   scale = K + alpha_over_area * sum(x^2 over the window), y = x * scale^-beta
// with alpha_over_area = alpha / N (cross channel) or alpha / (N * N) (within channel, an
// N x N window of the map). The scale lives in the workspace at y's strides, in the data type.
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <cstddef>
#include <string>

#include "core/call_tensors.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {

enum class LrnDirection { Forward, Backward };

// miopenSetLRNDescriptor's arguments.
struct LrnParams {
  // An int: a value outside miopenLRNMode_t's two (a test's, or MIOpen's stored anything) must
  // not live in the enum type (undefined behaviour, which UBSan reports).
  int mode = miopenLRNWithinChannel;
  unsigned int n = 0;
  double alpha = 0.0, beta = 0.0, k = 0.0;
};

using LrnDescriptors = CallDescriptors;  // core/call_tensors.hpp

using LrnStrides = NchwStrides;  // core/call_tensors.hpp

class LrnProblem {
 public:
  // Throws BadParm (one-line reason) for descriptors that do not describe one call (unset, not
  // 4-D, lengths or types that differ, overlapping output elements, y's elements beyond
  // MIOpen's workspace size when the scale is kept), an invalid mode, lrnN 0 or K 0 (MIOpen:
  // "Expect non-zero bias/K"), and NotImplemented for data other than float and half (MIOpen
  // has no bfloat16 LRN). `save_scale`: a forward call with do_backward.
  LrnProblem(LrnDirection direction, const LrnParams& params, const LrnDescriptors& d,
             bool save_scale = false);

  LrnDirection direction() const { return direction_; }
  bool forward() const { return direction_ == LrnDirection::Forward; }
  // Forward writes the scale into the workspace (do_backward); backward always reads it.
  bool uses_workspace() const { return !forward() || save_scale_; }
  const LrnParams& params() const { return params_; }
  miopenLRNMode_t mode() const { return static_cast<miopenLRNMode_t>(params_.mode); }
  bool cross_channel() const { return params_.mode == miopenLRNCrossChannel; }
  int window() const { return static_cast<int>(params_.n); }
  int pre_pad() const { return (window() - 1) / 2; }
  int pad() const { return window() - 1 - pre_pad(); }
  // alpha / N (cross) or alpha / N^2 (within), as MIOpen's getNormDescr.
  double alpha_over_area() const;
  // Backward's 2 * alpha * beta / area.
  double backward_ratio() const;
  miopenDataType_t data_type() const { return type_; }
  // n, c, h, w.
  const std::array<long long, 4>& lens() const { return lens_; }
  long long elements() const { return lens_[0] * lens_[1] * lens_[2] * lens_[3]; }
  const LrnStrides& x_strides() const { return x_; }
  const LrnStrides& y_strides() const { return y_; }
  const LrnStrides& dy_strides() const { return dy_; }
  const LrnStrides& dx_strides() const { return dx_; }
  // Where the scale lives in the workspace: y's strides (MIOpen's layout).
  const LrnStrides& scale_strides() const { return y_; }
  // Every tensor of the call packed NCHW.
  bool packed() const { return packed_; }

  const std::string& key() const { return key_; }
  // lrn, lrnfp16.
  static std::string driver_base(miopenDataType_t type);
  // MIOpen's miopenLRNGetWorkSpaceSize: n * (n stride) * sizeof(float) of yDesc.
  static size_t workspace_size(const TensorDescriptor& y);

 private:
  LrnDirection direction_;
  LrnParams params_;
  bool save_scale_;
  miopenDataType_t type_ = miopenFloat;
  std::array<long long, 4> lens_{};
  LrnStrides x_{}, y_{}, dy_{}, dx_{};
  bool packed_ = false;
  std::string key_;
};

}  // namespace anydnn
