// Facts about miopenDataType_t values: which exist, their sizes and names, and the dispatch from
// a value to a backend's storage type.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <utility>

#include "core/errors.hpp"

namespace anydnn {

// True for the values a tensor descriptor accepts (4, the discontinued Int8x4, is rejected).
// Takes the raw integer: a C caller may pass any int for a miopenDataType_t.
bool is_valid_data_type(long long type);
size_t data_type_size(miopenDataType_t type);
const char* data_type_name(miopenDataType_t type);
// The floating-point types our compute kernels take: float, half, bfloat16.
inline bool is_float_like(miopenDataType_t t) {
  return t == miopenFloat || t == miopenHalf || t == miopenBFloat16;
}

// Calls f(T{}) with T the storage type a backend's kernels use for `type`: F32, F16 or BF16 (each
// backend names its own 16-bit types); throws NotImplemented with `unsupported` for other types.
template <class F32, class F16, class BF16, class F>
decltype(auto) dispatch_storage_type(miopenDataType_t type, const char* unsupported, F&& f) {
  switch (type) {
    case miopenFloat:
      return std::forward<F>(f)(F32{});
    case miopenHalf:
      return std::forward<F>(f)(F16{});
    case miopenBFloat16:
      return std::forward<F>(f)(BF16{});
    default:
      break;
  }
  ANYDNN_THROW(miopenStatusNotImplemented, unsupported);
}

}  // namespace anydnn
