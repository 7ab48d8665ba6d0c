#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/tensor_ops.hpp"

namespace anydnn::cuda {

namespace {

template <class T>
__global__ void blend_kernel(Dims5 d, const T* src, T* dst, float alpha, float beta) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < d.count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long o = offset_of(d, i);
    const float v = alpha * load(src[o]);
    dst[o] = store<T>(beta == 0.0f ? v : v + beta * load(dst[o]));
  }
}

__global__ void h2f_kernel(const __half* src, size_t n, float* dst) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = __half2float(src[i]);
}

__global__ void f2h_kernel(const float* src, size_t n, __half* dst) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = __float2half_rn(src[i]);
}

}  // namespace

void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha, float beta,
                 cudaStream_t stream) {
  const Dims5 d = dims5(desc);
  if (d.count == 0) return;
  dispatch_float_type(desc.type(), [&](auto tag) {
    using T = decltype(tag);
    blend_kernel<T><<<grid_for(d.count), 256, 0, stream>>>(d, static_cast<const T*>(src),
                                                           static_cast<T*>(dst), alpha, beta);
  });
  ANYDNN_CUDA_LAUNCHED("scale_blend");
}

void half_to_float(const uint16_t* src, size_t n, float* dst, cudaStream_t stream) {
  if (n == 0) return;
  h2f_kernel<<<grid_for(n), 256, 0, stream>>>(reinterpret_cast<const __half*>(src), n, dst);
  ANYDNN_CUDA_LAUNCHED("half_to_float");
}

void float_to_half(const float* src, size_t n, uint16_t* dst, cudaStream_t stream) {
  if (n == 0) return;
  f2h_kernel<<<grid_for(n), 256, 0, stream>>>(src, n, reinterpret_cast<__half*>(dst));
  ANYDNN_CUDA_LAUNCHED("float_to_half");
}

}  // namespace anydnn::cuda
