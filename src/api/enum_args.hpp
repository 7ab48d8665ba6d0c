// Enum arguments more than one family's shims check the same way (C callers may pass any int:
// the value is read with raw_enum before it is used as the enum type).
#pragma once

#include <miopen/miopen.h>

#include "api/api_log.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn::api {

inline miopenDataType_t valid_data_type(const miopenDataType_t& t) {
  const long long v = raw_enum(t);
  ANYDNN_CHECK_BADPARM(is_valid_data_type(v), "invalid data type " << v);
  return static_cast<miopenDataType_t>(v);
}

inline miopenBatchNormMode_t valid_bn_mode(const miopenBatchNormMode_t& m) {
  const long long v = raw_enum(m);
  ANYDNN_CHECK_BADPARM(v == miopenBNSpatial || v == miopenBNPerActivation,
                       "bn_mode " << v << " is not a miopenBatchNormMode_t");
  return static_cast<miopenBatchNormMode_t>(v);
}

inline miopenActivationMode_t valid_activ_mode(const miopenActivationMode_t& m) {
  const long long v = raw_enum(m);
  ANYDNN_CHECK_BADPARM(v >= miopenActivationPASTHRU && v <= miopenActivationELU,
                       "invalid activation mode " << v);
  return static_cast<miopenActivationMode_t>(v);
}

}  // namespace anydnn::api
