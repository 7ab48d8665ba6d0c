#include "core/conv_descriptor.hpp"

#include <algorithm>
#include <string>

#include "core/errors.hpp"

namespace anydnn {

ConvolutionDescriptor::ConvolutionDescriptor()
    : pads_{0, 0}, strides_{1, 1}, dilations_{1, 1}, trans_output_pads_{0, 0} {}

ConvolutionDescriptor::ConvolutionDescriptor(long long mode, std::vector<int> pads,
                                             std::vector<int> strides, std::vector<int> dilations)
    : pads_(std::move(pads)), strides_(std::move(strides)), dilations_(std::move(dilations)) {
  // The group and depthwise modes are deprecated aliases of convolution (groups come from
  // miopenSetConvolutionGroupCount).
  switch (mode) {
    case miopenConvolution:
    case miopenGroupConv:
    case miopenDepthwise:
      mode_ = miopenConvolution;
      break;
    case miopenTranspose:
      mode_ = miopenTranspose;
      break;
    default:
      ANYDNN_THROW(miopenStatusBadParm, "invalid convolution mode " << mode);
  }
  const size_t dims = pads_.size();
  ANYDNN_CHECK_BADPARM(dims >= 1, "spatial dimension must be >= 1");
  ANYDNN_CHECK(dims == 2 || dims == 3, miopenStatusNotImplemented,
               dims << "-D convolution is not supported (2-D and 3-D are)");
  ANYDNN_CHECK_BADPARM(strides_.size() == dims && dilations_.size() == dims,
                       "pads, strides and dilations must have the same length");
  for (size_t i = 0; i < dims; ++i) {
    ANYDNN_CHECK_BADPARM(pads_[i] >= 0, "invalid pad " << pads_[i] << " (must be >= 0)");
    ANYDNN_CHECK_BADPARM(strides_[i] >= 1, "invalid stride " << strides_[i] << " (must be >= 1)");
    ANYDNN_CHECK_BADPARM(dilations_[i] >= 1,
                         "invalid dilation " << dilations_[i] << " (must be >= 1)");
  }
  trans_output_pads_.assign(dims, 0);
}

void ConvolutionDescriptor::set_group_count(int groups) {
  ANYDNN_CHECK_BADPARM(groups >= 1, "invalid group count " << groups << " (must be >= 1)");
  group_count_ = groups;
}

void ConvolutionDescriptor::set_trans_output_pads(std::vector<int> adj) {
  ANYDNN_CHECK_BADPARM(adj.size() == pads_.size(), "output padding has "
                                                       << adj.size() << " values for a "
                                                       << pads_.size() << "-D convolution");
  for (int a : adj)
    ANYDNN_CHECK_BADPARM(a >= 0, "invalid transpose output padding " << a << " (must be >= 0)");
  trans_output_pads_ = std::move(adj);
}

void ConvolutionDescriptor::set_padding_mode(long long mode) {
  ANYDNN_CHECK_BADPARM(
      mode == miopenPaddingDefault || mode == miopenPaddingSame || mode == miopenPaddingValid,
      "invalid padding mode " << mode);
  padding_mode_ = static_cast<miopenPaddingMode_t>(mode);
}

void ConvolutionDescriptor::set_attribute(long long attr, int value) {
  switch (attr) {
    case MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL:
      ANYDNN_CHECK_BADPARM(value >= -1 && value <= 1,
                           "invalid FP16_ALT_IMPL value " << value << " (expected -1, 0 or 1)");
      attributes_.fp16_alt_impl = value;
      return;
    case MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC:
      ANYDNN_CHECK_BADPARM(value == 0 || value == 1,
                           "invalid DETERMINISTIC value " << value << " (expected 0 or 1)");
      attributes_.deterministic = value;
      return;
    case MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE:
      ANYDNN_CHECK_BADPARM(
          value == miopenF8RoundingModeStandard || value == miopenF8RoundingModeStochastic,
          "invalid FP8_ROUNDING_MODE value " << value);
      attributes_.fp8_rounding_mode = value;
      return;
  }
  ANYDNN_THROW(miopenStatusBadParm, "convolution attribute " << attr << " does not exist");
}

int ConvolutionDescriptor::get_attribute(long long attr) const {
  switch (attr) {
    case MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL:
      return attributes_.fp16_alt_impl;
    case MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC:
      return attributes_.deterministic;
    case MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE:
      return attributes_.fp8_rounding_mode;
  }
  ANYDNN_THROW(miopenStatusBadParm, "convolution attribute " << attr << " does not exist");
}

std::vector<size_t> ConvolutionDescriptor::forward_output_lens(const TensorDescriptor& x,
                                                               const TensorDescriptor& w) const {
  const size_t dims = pads_.size();
  ANYDNN_CHECK_BADPARM(x.is_set(), "input tensor descriptor is not set");
  ANYDNN_CHECK_BADPARM(w.is_set(), "weight tensor descriptor is not set");
  ANYDNN_CHECK_BADPARM(x.num_dims() == dims + 2, "input tensor has "
                                                     << x.num_dims() << " dimensions, a " << dims
                                                     << "-D convolution needs " << dims + 2);
  ANYDNN_CHECK_BADPARM(w.num_dims() == dims + 2, "weight tensor has "
                                                     << w.num_dims() << " dimensions, a " << dims
                                                     << "-D convolution needs " << dims + 2);
  const auto& xl = x.lens();
  const auto& wl = w.lens();
  const size_t g = static_cast<size_t>(group_count_);
  std::vector<size_t> out(dims + 2);
  out[0] = xl[0];
  if (mode_ == miopenConvolution) {
    // weights [K, C/G, f...]
    ANYDNN_CHECK_BADPARM(xl[1] == wl[1] * g, "channels do not match for the filter: input has "
                                                 << xl[1] << ", weights " << wl[1]
                                                 << " per group x " << g << " groups");
    ANYDNN_CHECK_BADPARM(wl[0] % g == 0,
                         "output channels " << wl[0] << " are not divisible by group count " << g);
    out[1] = wl[0];
  } else {
    // transpose: weights [C_in, K/G, f...], output channels K = w[1] * G
    ANYDNN_CHECK_BADPARM(xl[1] == wl[0],
                         "channels do not match for the transpose filter: input has "
                             << xl[1] << ", weights " << wl[0]);
    ANYDNN_CHECK_BADPARM(wl[0] % g == 0,
                         "input channels " << wl[0] << " are not divisible by group count " << g);
    out[1] = wl[1] * g;
  }
  for (size_t i = 0; i < dims; ++i) {
    const long in = static_cast<long>(xl[i + 2]);
    const long f = static_cast<long>(wl[i + 2]);
    const long p = pads_[i], s = strides_[i], d = dilations_[i];
    long o;
    if (mode_ == miopenTranspose) {
      const long adj = trans_output_pads_[i];
      ANYDNN_CHECK_BADPARM(
          adj < s, "transpose output padding " << adj << " must be smaller than stride " << s);
      o = s * (in - 1) + 1 + d * (f - 1) - 2 * p + adj;
    } else if (padding_mode_ == miopenPaddingSame) {
      o = (in + s - 1) / s;
    } else if (padding_mode_ == miopenPaddingValid) {
      o = (in - f + s) / s;  // ceil((in - f + 1) / s)
    } else {
      o = (in + 2 * p - d * (f - 1) - 1) / s + 1;
    }
    out[i + 2] = static_cast<size_t>(std::max(1L, o));
  }
  return out;
}

}  // namespace anydnn
