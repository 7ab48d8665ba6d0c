#include "core/data_type.hpp"

namespace anydnn {

bool is_valid_data_type(long long type) {
  switch (type) {
    case miopenHalf:
    case miopenFloat:
    case miopenInt32:
    case miopenInt8:
    case miopenBFloat16:
    case miopenDouble:
    case miopenFloat8:
    case miopenBFloat8:
    case miopenInt64:
      return true;
    default:
      return false;
  }
}

size_t data_type_size(miopenDataType_t type) {
  switch (type) {
    case miopenHalf:
    case miopenBFloat16:
      return 2;
    case miopenFloat:
    case miopenInt32:
      return 4;
    case miopenInt8:
    case miopenFloat8:
    case miopenBFloat8:
      return 1;
    case miopenDouble:
    case miopenInt64:
      return 8;
    default:
      return 0;
  }
}

const char* data_type_name(miopenDataType_t type) {
  switch (type) {
    case miopenHalf:
      return "FP16";
    case miopenFloat:
      return "FP32";
    case miopenInt32:
      return "INT32";
    case miopenInt8:
      return "INT8";
    case miopenBFloat16:
      return "BF16";
    case miopenDouble:
      return "FP64";
    case miopenFloat8:
      return "FP8";
    case miopenBFloat8:
      return "BF8";
    case miopenInt64:
      return "INT64";
    default:
      return "UNKNOWN";
  }
}

}  // namespace anydnn
