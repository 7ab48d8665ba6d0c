// A softmax problem: one miopenSoftmaxForward(_V2) / Backward(_V2) call, validated, with its
// canonical string: the line MIOpen's LogCmdSoftmax prints,
//   "softmax -n 32 -c 1000 -H 1 -W 1 -F 1 -a 1 -m 1 -A 1.000000 -B 0.000000"
// (softmaxfp16 for half data, anydnn's softmaxbfp16 for bfloat16; -F 2 for backward; alpha and
// beta printed with std::to_string as MIOpen does). Tensors are 4-D (MIOpen reads n, c, h, w)
// with any strides.
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <string>

#include "core/call_tensors.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {

enum class SoftmaxDirection { Forward, Backward };

using SoftmaxDescriptors = CallDescriptors;  // core/call_tensors.hpp

using SoftmaxStrides = NchwStrides;  // core/call_tensors.hpp

class SoftmaxProblem {
 public:
  // Throws BadParm (one-line reason) for descriptors that do not describe one call (unset, not
  // 4-D, lengths or types that differ, overlapping output elements, invalid algorithm or mode)
  // and NotImplemented for data other than float, half, bfloat16.
  SoftmaxProblem(SoftmaxDirection direction, miopenSoftmaxAlgorithm_t algorithm,
                 miopenSoftmaxMode_t mode, const SoftmaxDescriptors& d, float alpha = 1.0f,
                 float beta = 0.0f);

  SoftmaxDirection direction() const { return direction_; }
  bool forward() const { return direction_ == SoftmaxDirection::Forward; }
  miopenSoftmaxAlgorithm_t algorithm() const { return algorithm_; }
  miopenSoftmaxMode_t mode() const { return mode_; }
  miopenDataType_t data_type() const { return type_; }
  float alpha() const { return alpha_; }
  float beta() const { return beta_; }
  // n, c, h, w.
  const std::array<long long, 4>& lens() const { return lens_; }
  // The reduction: `groups` = n * inner independent softmaxes of `vector` elements each
  // (INSTANCE: inner 1, vector c*h*w; CHANNEL: inner h*w, vector c).
  long long inner() const { return inner_; }
  long long vector() const { return vector_; }
  long long groups() const { return lens_[0] * inner_; }
  // Forward: x (input) and y (output); backward: y, dy (inputs) and dx (output). `in` is x or
  // y, `out` y or dx; `grad` is dy (backward only).
  const SoftmaxStrides& in_strides() const { return in_; }
  const SoftmaxStrides& out_strides() const { return out_; }
  const SoftmaxStrides& grad_strides() const { return grad_; }
  // Every tensor of the call packed NCHW.
  bool packed() const { return packed_; }

  const std::string& key() const { return key_; }
  // softmax, softmaxfp16, softmaxbfp16.
  static std::string driver_base(miopenDataType_t type);

 private:
  SoftmaxDirection direction_;
  miopenSoftmaxAlgorithm_t algorithm_;
  miopenSoftmaxMode_t mode_;
  miopenDataType_t type_ = miopenFloat;
  float alpha_, beta_;
  std::array<long long, 4> lens_{};
  long long inner_ = 1, vector_ = 1;
  SoftmaxStrides in_{}, out_{}, grad_{};
  bool packed_ = false;
  std::string key_;
};

}  // namespace anydnn
