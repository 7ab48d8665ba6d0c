// What the cuDNN frontend peers share (gpu_cudnn_fe.cpp: convolutions; gpu_fusion_cudnn.cpp:
// fused conv + bias + ReLU): error checks, the data type and the tensor dims / strides. Include
// only under ANYDNN_HAVE_CUDNN_FRONTEND.
#pragma once

#include <cudnn_frontend.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_common.hpp"

namespace anydnn::gpubench::fe_util {

namespace fe = cudnn_frontend;

// error_t::get_message is not const: taken by value.
inline void check_fe(fe::error_t e, const std::string& what) {
  if (e.is_bad()) throw Failure("cuDNN frontend " + what + ": " + e.get_message());
}

inline fe::DataType_t fe_type(DType t) {
  return t == DType::F32   ? fe::DataType_t::FLOAT
         : t == DType::F16 ? fe::DataType_t::HALF
                           : fe::DataType_t::BFLOAT16;
}

// Logical N C H W (or K C R S) lengths with packed NCHW or NHWC strides.
inline std::vector<int64_t> dims_of(const std::array<int, 4>& d) {
  return {d[0], d[1], d[2], d[3]};
}
inline std::vector<int64_t> strides_of(const std::array<int, 4>& d, bool nhwc) {
  const int64_t c = d[1], h = d[2], w = d[3];
  if (nhwc) return {h * w * c, 1, w * c, c};
  return {c * h * w, h * w, w, 1};
}

}  // namespace anydnn::gpubench::fe_util
