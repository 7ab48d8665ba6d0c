// ArrayFire-style C++ API: an owning host array and convolve2NN / convolve2GradientNN with
// ArrayFire's semantics (see convolve2nn.h for layout, flip and parameters). Header-only, over
// the C functions of libanydnn_af; errors throw anydnn::af::exception with ArrayFire's code.
//
//   anydnn::af::array x({8, 10, 3, 2}, data), f({3, 3, 3, 4}, taps);
//   auto y = anydnn::af::convolve2NN(x, f, {1, 1}, {1, 1}, {1, 1});
//   auto dx = anydnn::af::convolve2GradientNN(ones, x, f, y, {1, 1}, {1, 1}, {1, 1},
//                                             anydnn::af::convGradientType::Data);
#pragma once

#include <miopen/miopen.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "anydnn/convolve2nn.h"

namespace anydnn::af {

using dim_t = anydnn_dim_t;

// Four dimensions, d0 fastest; unspecified ones are 1 (ArrayFire's dim4).
struct dim4 {
  dim_t d[4] = {1, 1, 1, 1};
  dim4() = default;
  dim4(dim_t d0, dim_t d1 = 1, dim_t d2 = 1, dim_t d3 = 1) : d{d0, d1, d2, d3} {}
  dim_t operator[](int i) const { return d[i]; }
  dim_t elements() const { return d[0] * d[1] * d[2] * d[3]; }
  bool operator==(const dim4& o) const { return std::memcmp(d, o.d, sizeof d) == 0; }
};

enum class convGradientType {
  Default = ANYDNN_CONV_GRADIENT_DEFAULT,
  Filter = ANYDNN_CONV_GRADIENT_FILTER,
  Data = ANYDNN_CONV_GRADIENT_DATA,
  Bias = ANYDNN_CONV_GRADIENT_BIAS
};

class exception : public std::runtime_error {
 public:
  exception(anydnn_af_err err, const std::string& what) : std::runtime_error(what), err_(err) {}
  anydnn_af_err err() const { return err_; }

 private:
  anydnn_af_err err_;
};

namespace detail {
inline uint16_t to_half(float f) {
  // Round to nearest even, with subnormals, infinities and NaN.
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow
  if (x < 0x38800000u) {                                               // subnormal or zero
    float a;
    std::memcpy(&a, &x, 4);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  const uint32_t r = x + 0xfffu + ((x >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((r - 0x38000000u) >> 13));
}
inline float from_half(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  float v;
  if (e == 0) {
    v = std::ldexp(static_cast<float>(m), -24);
  } else if (e == 31) {
    const uint32_t bits = 0x7f800000u | (m << 13);
    std::memcpy(&v, &bits, 4);
  } else {
    const uint32_t bits = ((e + 112) << 23) | (m << 13);
    std::memcpy(&v, &bits, 4);
  }
  return sign ? -v : v;
}
inline void check(anydnn_af_err e) {
  if (e == ANYDNN_AF_SUCCESS) return;
  std::string msg(anydnn_af_get_last_error(nullptr, 0) + 1, '\0');
  anydnn_af_get_last_error(msg.data(), msg.size());
  msg.pop_back();
  throw exception(e, msg);
}
}  // namespace detail

// An owning host array of f32 (miopenFloat) or f16 (miopenHalf) values in ArrayFire's layout.
class array {
 public:
  array() = default;
  // Zero-filled.
  explicit array(dim4 dims, miopenDataType_t type = miopenFloat)
      : dims_(dims), type_(type), bytes_(static_cast<size_t>(dims.elements()) * size(type)) {
    if (type != miopenFloat && type != miopenHalf)
      throw exception(ANYDNN_AF_ERR_TYPE, "anydnn::af::array holds miopenFloat or miopenHalf");
  }
  // From float values (converted when type is miopenHalf).
  array(dim4 dims, const float* values, miopenDataType_t type = miopenFloat) : array(dims, type) {
    for (size_t i = 0; i < elements(); ++i)
      set(i, values[i]);
  }
  array(dim4 dims, std::initializer_list<float> values, miopenDataType_t type = miopenFloat)
      : array(dims, type) {
    if (values.size() != elements())
      throw exception(ANYDNN_AF_ERR_SIZE, "initializer has the wrong number of values");
    size_t i = 0;
    for (float v : values)
      set(i++, v);
  }
  static array constant(float value, dim4 dims, miopenDataType_t type = miopenFloat) {
    array a(dims, type);
    for (size_t i = 0; i < a.elements(); ++i)
      a.set(i, value);
    return a;
  }

  dim4 dims() const { return dims_; }
  miopenDataType_t type() const { return type_; }
  size_t elements() const { return static_cast<size_t>(dims_.elements()); }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }
  // Value i (d0 fastest) as float.
  float get(size_t i) const {
    if (type_ == miopenHalf) {
      uint16_t h;
      std::memcpy(&h, &bytes_[i * 2], 2);
      return detail::from_half(h);
    }
    float f;
    std::memcpy(&f, &bytes_[i * 4], 4);
    return f;
  }
  void set(size_t i, float v) {
    if (type_ == miopenHalf) {
      const uint16_t h = detail::to_half(v);
      std::memcpy(&bytes_[i * 2], &h, 2);
    } else {
      std::memcpy(&bytes_[i * 4], &v, 4);
    }
  }
  float operator()(dim_t i0, dim_t i1 = 0, dim_t i2 = 0, dim_t i3 = 0) const {
    return get(static_cast<size_t>(((i3 * dims_[2] + i2) * dims_[1] + i1) * dims_[0] + i0));
  }
  std::vector<float> host() const {
    std::vector<float> v(elements());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = get(i);
    return v;
  }
  anydnn_af_view view() const { return {bytes_.data(), {dims_[0], dims_[1], dims_[2], dims_[3]}}; }

 private:
  static size_t size(miopenDataType_t t) { return t == miopenHalf ? 2 : 4; }
  dim4 dims_{0, 0, 0, 0};
  miopenDataType_t type_ = miopenFloat;
  std::vector<unsigned char> bytes_;
};

namespace detail {
// ArrayFire's C++ wrapper passes both spatial values of every dim4.
struct Params {
  dim_t s[2], p[2], d[2];
  Params(dim4 stride, dim4 padding, dim4 dilation)
      : s{stride[0], stride[1]}, p{padding[0], padding[1]}, d{dilation[0], dilation[1]} {}
  anydnn_af_conv_params c() const { return {2, s, 2, p, 2, d}; }
};
inline array result(anydnn_dim_t d[4], miopenDataType_t type) {
  return array(dim4(d[0], d[1], d[2], d[3]), type);
}
}  // namespace detail

// signal (W x H x C x N) convolved with filter (fW x fH x C x K): Wo x Ho x K x N.
inline array convolve2NN(miopenHandle_t handle, const array& signal, const array& filter,
                         dim4 stride, dim4 padding, dim4 dilation) {
  if (signal.type() != filter.type())
    throw exception(ANYDNN_AF_ERR_TYPE, "convolve2NN: signal and filter types differ");
  const detail::Params p(stride, padding, dilation);
  anydnn_dim_t d[4];
  detail::check(anydnn_convolve2_nn(handle, signal.type(), nullptr, d, 0, signal.view(),
                                    filter.view(), p.c()));
  array out = detail::result(d, signal.type());
  detail::check(anydnn_convolve2_nn(handle, signal.type(), out.data(), d, out.elements(),
                                    signal.view(), filter.view(), p.c()));
  return out;
}
inline array convolve2NN(const array& signal, const array& filter, dim4 stride, dim4 padding,
                         dim4 dilation) {
  return convolve2NN(nullptr, signal, filter, stride, padding, dilation);
}

// The gradient of convolve2NN's output: DEFAULT / DATA -> signal's dims, FILTER -> filter's,
// BIAS -> 1 x 1 x K x 1.
inline array convolve2GradientNN(miopenHandle_t handle, const array& incoming_gradient,
                                 const array& original_signal, const array& original_filter,
                                 const array& convolved_output, dim4 stride, dim4 padding,
                                 dim4 dilation, convGradientType grad_type) {
  const miopenDataType_t t = incoming_gradient.type();
  if (original_signal.type() != t || original_filter.type() != t)
    throw exception(ANYDNN_AF_ERR_TYPE, "convolve2GradientNN: operand types differ");
  const detail::Params p(stride, padding, dilation);
  const auto g = static_cast<anydnn_conv_gradient_type>(grad_type);
  anydnn_dim_t d[4];
  detail::check(anydnn_convolve2_gradient_nn(handle, t, nullptr, d, 0, incoming_gradient.view(),
                                             original_signal.view(), original_filter.view(),
                                             convolved_output.view(), p.c(), g));
  array out = detail::result(d, t);
  detail::check(anydnn_convolve2_gradient_nn(
      handle, t, out.data(), d, out.elements(), incoming_gradient.view(), original_signal.view(),
      original_filter.view(), convolved_output.view(), p.c(), g));
  return out;
}
inline array convolve2GradientNN(const array& incoming_gradient, const array& original_signal,
                                 const array& original_filter, const array& convolved_output,
                                 dim4 stride, dim4 padding, dim4 dilation,
                                 convGradientType grad_type) {
  return convolve2GradientNN(nullptr, incoming_gradient, original_signal, original_filter,
                             convolved_output, stride, padding, dilation, grad_type);
}

}  // namespace anydnn::af
