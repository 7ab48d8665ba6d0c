// Vectorisable exp, sigmoid and tanh for the RNN gate loops. std::exp / std::tanh are scalar
// library calls that the compiler cannot vectorise; at 5 transcendental values per hidden unit
// and step they cost more than the hidden GEMM on small batches. Cephes' expf: Cody-Waite range
// reduction and a degree-6 polynomial, relative error below 2e-7 over the float range.
#pragma once

#include <bit>
#include <cstdint>

namespace anydnn::cpu {

#pragma omp declare simd
inline float fast_exp(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float t = x * 1.44269504088896341f;
  const float n = static_cast<float>(static_cast<int32_t>(t + (t >= 0.0f ? 0.5f : -0.5f)));
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  const float scale = std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
  return y * scale;
}

#pragma omp declare simd
inline float fast_sigmoid(float x) {
  return 1.0f / (1.0f + fast_exp(-x));
}

#pragma omp declare simd
inline float fast_tanh(float x) {
  // Cephes' tanhf: an odd polynomial below |x| = 0.625 (where 1 - 2 / (e^{2x} + 1) would
  // cancel), the exponential form above. Both are computed so that the select vectorises.
  const float z = x * x;
  const float poly = ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z +
                       1.33314422036e-1f) *
                          z -
                      3.33332819422e-1f) *
                         z * x +
                     x;
  const float big = 1.0f - 2.0f / (fast_exp(2.0f * x) + 1.0f);
  return (x > -0.625f && x < 0.625f) ? poly : big;
}

}  // namespace anydnn::cpu
