// Storage types and tensor geometry for CUDA kernels (the counterpart of cpu/cpu_types.hpp).
// Kernels are templates over the storage type (float, __half, __nv_bfloat16) and compute in
// fp32; load()/store() convert. Geometry travels to kernels by value in fixed-size arrays.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <miopen/miopen.h>

#include <array>
#include <cstdint>
#include <utility>

#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn::cuda {

__host__ __device__ inline float load(float v) {
  return v;
}
__host__ __device__ inline float load(__half v) {
  return __half2float(v);
}
__host__ __device__ inline float load(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T>
__host__ __device__ inline T store(float v);
template <>
__host__ __device__ inline float store<float>(float v) {
  return v;
}
template <>
__host__ __device__ inline __half store<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__host__ __device__ inline __nv_bfloat16 store<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// Calls f(T{}) with T the storage type of `type` (float, __half or __nv_bfloat16).
template <class F>
decltype(auto) dispatch_float_type(miopenDataType_t type, F&& f) {
  return dispatch_storage_type<float, __half, __nv_bfloat16>(
      type, "CUDA kernels do not handle this data type", std::forward<F>(f));
}

// Lengths and strides of a tensor of up to 5 dimensions, padded at the front with length 1
// (so a 4-D NCHW tensor is (1, N, C, H, W) in `lens`), for elementwise kernels.
struct Dims5 {
  long long lens[5];
  long long strides[5];
  long long count;  // logical elements
};

inline Dims5 dims5(const TensorDescriptor& d) {
  Dims5 r{};
  const auto& l = d.lens();
  const auto& s = d.strides();
  ANYDNN_CHECK(l.size() <= 5, miopenStatusNotImplemented,
               "CUDA kernels handle tensors of up to 5 dimensions, got " << l.size());
  const size_t pad = 5 - l.size();
  r.count = 1;
  for (size_t i = 0; i < 5; ++i) {
    r.lens[i] = i < pad ? 1 : static_cast<long long>(l[i - pad]);
    r.strides[i] = i < pad ? 0 : static_cast<long long>(s[i - pad]);
    r.count *= r.lens[i];
  }
  return r;
}

// Offset of logical element i (row-major over lens) in memory.
__host__ __device__ inline long long offset_of(const Dims5& d, long long i) {
  long long off = 0;
  for (int k = 4; k >= 0; --k) {
    off += (i % d.lens[k]) * d.strides[k];
    i /= d.lens[k];
  }
  return off;
}

// Strides of an activation/weight tensor as (n, c, d, h, w); a 4-D tensor gets d-stride 0.
struct Ncdhw {
  long long s[5];
};
inline Ncdhw strides_ncdhw(const TensorDescriptor& t) {
  const auto& s = t.strides();
  if (s.size() == 4)
    return {{static_cast<long long>(s[0]), static_cast<long long>(s[1]), 0,
             static_cast<long long>(s[2]), static_cast<long long>(s[3])}};
  return {{static_cast<long long>(s[0]), static_cast<long long>(s[1]), static_cast<long long>(s[2]),
           static_cast<long long>(s[3]), static_cast<long long>(s[4])}};
}

}  // namespace anydnn::cuda
