// A convolution descriptor with MIOpen's semantics: mode (convolution or transpose), padding,
// stride, dilation, transpose output padding, group count and attributes, for 2-D or 3-D.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <vector>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

struct ConvAttributes {
  int fp16_alt_impl = -1;     // MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL: -1 default, 0, 1
  int deterministic = 0;      // MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC: 0, 1
  int fp8_rounding_mode = 0;  // MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE: miopenF8RoundingMode_t
  bool operator==(const ConvAttributes&) const = default;
};

class ConvolutionDescriptor {
 public:
  ConvolutionDescriptor();  // 2-D, no padding, unit stride and dilation, as MIOpen's default
  // Validates (BadParm for negative pads, stride or dilation < 1, unknown mode). Modes and
  // attributes come as raw integers: a C caller may pass any int for an enum.
  ConvolutionDescriptor(long long mode, std::vector<int> pads, std::vector<int> strides,
                        std::vector<int> dilations);

  miopenConvolutionMode_t mode() const { return mode_; }
  miopenPaddingMode_t padding_mode() const { return padding_mode_; }
  int spatial_dims() const { return static_cast<int>(pads_.size()); }
  const std::vector<int>& pads() const { return pads_; }
  const std::vector<int>& strides() const { return strides_; }
  const std::vector<int>& dilations() const { return dilations_; }
  const std::vector<int>& trans_output_pads() const { return trans_output_pads_; }
  int group_count() const { return group_count_; }
  const ConvAttributes& attributes() const { return attributes_; }

  void set_group_count(int groups);
  void set_trans_output_pads(std::vector<int> adj);
  void set_attribute(long long attr, int value);
  int get_attribute(long long attr) const;
  void set_padding_mode(long long mode);

  // Output lengths for input x and weights w (MIOpen's rules, docs/api-status.md); checks
  // that the descriptors fit together and throws BadParm with the reason when they do not.
  std::vector<size_t> forward_output_lens(const TensorDescriptor& x,
                                          const TensorDescriptor& w) const;

  bool operator==(const ConvolutionDescriptor&) const = default;

 private:
  miopenConvolutionMode_t mode_ = miopenConvolution;
  miopenPaddingMode_t padding_mode_ = miopenPaddingDefault;
  std::vector<int> pads_;
  std::vector<int> strides_;
  std::vector<int> dilations_;
  std::vector<int> trans_output_pads_;
  int group_count_ = 1;
  ConvAttributes attributes_;
};

}  // namespace anydnn
