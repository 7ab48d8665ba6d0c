// Storage types for CPU kernels: kernels are templates over the storage type and compute in
// fp32; these wrappers give half and bfloat16 their own C++ types so overloads pick the right
// conversion.
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <cstdint>
#include <utility>

#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/float_types.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn::cpu {

struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

inline float to_float(float v) {
  return v;
}
inline float to_float(Half v) {
  return half_to_float(v.bits);
}
inline float to_float(BFloat16 v) {
  return bf16_to_float(v.bits);
}

template <class T>
T from_float(float v);
template <>
inline float from_float<float>(float v) {
  return v;
}
template <>
inline Half from_float<Half>(float v) {
  return Half{float_to_half(v)};
}
template <>
inline BFloat16 from_float<BFloat16>(float v) {
  return BFloat16{float_to_bf16(v)};
}

// Calls f(T{}) with T the storage type of `type` (float, Half or BFloat16).
template <class F>
decltype(auto) dispatch_float_type(miopenDataType_t type, F&& f) {
  return dispatch_storage_type<float, Half, BFloat16>(
      type, "CPU kernels do not handle this data type", std::forward<F>(f));
}

// Strides of an activation/weight tensor as (n, c, d, h, w); a 4-D tensor gets d-stride 0.
inline std::array<size_t, 5> strides_ncdhw(const TensorDescriptor& t) {
  const auto& s = t.strides();
  if (s.size() == 4) return {s[0], s[1], 0, s[2], s[3]};
  return {s[0], s[1], s[2], s[3], s[4]};
}

}  // namespace anydnn::cpu
