// What the CUDA pooling solvers share: the lowest finite value per storage type (max pooling's
// start), the grid size and the output blend.
#pragma once

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_types.cuh"

namespace anydnn::cuda::pool_util {

constexpr unsigned kBlock = 256;

template <class T>
__host__ __device__ inline float lowest() {
  if constexpr (std::is_same_v<T, float>) return -3.402823466e38f;
  if constexpr (std::is_same_v<T, __half>) return -65504.0f;
  return -3.38953139e38f;
}

inline unsigned grid_for(CudaBackend& be, long long count) {
  const long long cap = static_cast<long long>(be.properties().multiProcessorCount) * 16;
  const long long want = (count + kBlock - 1) / kBlock;
  return static_cast<unsigned>(want < 1 ? 1 : (want < cap ? want : cap));
}

template <class T>
__device__ inline void blend(T* out, float v, float alpha, float beta) {
  *out = store<T>(beta != 0.0f ? alpha * v + beta * load(*out) : alpha * v);
}

template <class T>
struct Loader {
  __device__ float operator()(const T* p) const { return load(*p); }
};

}  // namespace anydnn::cuda::pool_util
