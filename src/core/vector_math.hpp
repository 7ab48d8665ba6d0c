// exp, tanh and the logistic function in a form the host compiler vectorises: pure arithmetic,
// bit casts and selects, no library call (a call to expf keeps a loop scalar, which made the
// CPU softmax forward and the logistic / tanh activations 4-6x slower than oneDNN's). On the
// device (__CUDA_ARCH__) they are the CUDA math functions. Accuracy: Cephes' single-precision
// polynomials, within 2 ulp of the correctly rounded result over the normal range (checked
// against double in tests/unit/vector_math_test.cpp); exp underflows to 0 below -87.34 (no
// denormal results: they take microcode assists on x86) and overflows to inf above 88.72; NaN
// propagates.
#pragma once

#include <math.h>

#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace anydnn::vmath {

#if !defined(__CUDA_ARCH__)
namespace detail {

inline float from_bits(int32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

inline uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

}  // namespace detail
#endif

ANYDNN_HD inline float exp(float x) {
#if defined(__CUDA_ARCH__)
  return expf(x);
#else
  constexpr float kLo = -87.3365447504019f, kHi = 88.7228391116729f;
  // 1.5 * 2^23: adding it rounds to an integer and leaves that integer in the low mantissa bits,
  // so there is no float-to-int conversion (and no select between two roundings, which made
  // GCC compute the polynomial twice).
  constexpr float kMagic = 12582912.0f;
  const bool nan = !(x == x);
  float xc = nan ? 0.0f : x;
  xc = xc < kLo ? kLo : xc;
  xc = xc > kHi ? kHi : xc;
  // x = n ln2 + r, |r| <= ln2 / 2, with ln2 in two parts so r is exact.
  const float big = xc * 1.44269504088896341f + kMagic;
  const float fn = big - kMagic;
  const float r = (xc - fn * 0.693359375f) + fn * 2.12194440e-4f;
  const float z = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * z + r + 1.0f;
  // 2^n as two factors: n reaches 128, beyond one float exponent. n is in [-126, 128].
  const int32_t n = static_cast<int32_t>(detail::bits(big) - 0x4B400000u), h = n / 2;
  const float v = e * detail::from_bits((h + 127) << 23) * detail::from_bits((n - h + 127) << 23);
  const float out = x < kLo ? 0.0f : x > kHi ? INFINITY : v;
  return nan ? x : out;
#endif
}

// tanh: Cephes' odd polynomial below |x| = 0.625 (no cancellation near 0), 1 - 2 / (e^2|x| + 1)
// above.
ANYDNN_HD inline float tanh(float x) {
#if defined(__CUDA_ARCH__)
  return tanhf(x);
#else
  const float a = fabsf(x), z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * a + a;
  const float big = 1.0f - 2.0f / (vmath::exp(2.0f * a) + 1.0f);
  return copysignf(a < 0.625f ? small : big, x);  // odd, -0 included
#endif
}

// 1 / (1 + e^-x).
ANYDNN_HD inline float logistic(float x) {
  return 1.0f / (1.0f + vmath::exp(-x));
}

}  // namespace anydnn::vmath
