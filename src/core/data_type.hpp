// Facts about miopenDataType_t values: which exist, their sizes and names.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>

namespace anydnn {

// True for the values a tensor descriptor accepts (4, the discontinued Int8x4, is rejected).
bool is_valid_data_type(miopenDataType_t type);
size_t data_type_size(miopenDataType_t type);
const char* data_type_name(miopenDataType_t type);
// The floating-point types our compute kernels take: float, half, bfloat16.
inline bool is_float_like(miopenDataType_t t) {
  return t == miopenFloat || t == miopenHalf || t == miopenBFloat16;
}

}  // namespace anydnn
