#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

cudaDataType cuda_type(miopenDataType_t t) {
  switch (t) {
    case miopenFloat:
      return CUDA_R_32F;
    case miopenHalf:
      return CUDA_R_16F;
    case miopenBFloat16:
      return CUDA_R_16BF;
    default:
      break;
  }
  ANYDNN_THROW(miopenStatusNotImplemented, "cuBLAS GEMMs take float, half or bfloat16 data");
}

template <class T>
__global__ void store_from_float_kernel(const float* src, T* dst, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = store<T>(src[i]);
}

template <class T>
__global__ void sum_float_slices_kernel(const float* __restrict__ src, size_t n,
                                        size_t slice_stride, int slices, T* __restrict__ dst) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float sum = 0.f;
    for (int s = 0; s < slices; ++s)
      sum += src[static_cast<size_t>(s) * slice_stride + i];
    dst[i] = store<T>(sum);
  }
}

}  // namespace

void sum_float_slices(const float* src, size_t n, size_t slice_stride, int slices,
                      miopenDataType_t type, void* dst, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float_type(type, [&](auto tag) {
    using T = decltype(tag);
    sum_float_slices_kernel<T>
        <<<grid_for(n), 256, 0, stream>>>(src, n, slice_stride, slices, static_cast<T*>(dst));
  });
  ANYDNN_CUDA_LAUNCHED("sum_float_slices");
}

void gemm_rm(cublasHandle_t handle, bool a_trans, bool b_trans, int m, int n, int k,
             const GemmOperand& a, const GemmOperand& b, float beta, void* c,
             miopenDataType_t c_type, long long ldc, long long c_batch_stride, int batch,
             GemmMath math) {
  // cuBLAS is column-major: a row-major matrix is its transpose there, so row-major
  // C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands and m, n.
  const float alpha = 1.0f;
  check_cublas(
      cublasGemmStridedBatchedEx(
          handle, b_trans ? CUBLAS_OP_T : CUBLAS_OP_N, a_trans ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
          &alpha, b.data, cuda_type(b.type), static_cast<int>(b.ld), b.batch_stride, a.data,
          cuda_type(a.type), static_cast<int>(a.ld), a.batch_stride, &beta, c, cuda_type(c_type),
          static_cast<int>(ldc), c_batch_stride, batch,
          math == GemmMath::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
          CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx");
}

void store_from_float(miopenDataType_t type, const float* src, void* dst, size_t n,
                      cudaStream_t stream) {
  if (n == 0) return;
  dispatch_float_type(type, [&](auto tag) {
    using T = decltype(tag);
    store_from_float_kernel<T><<<grid_for(n), 256, 0, stream>>>(src, static_cast<T*>(dst), n);
  });
  ANYDNN_CUDA_LAUNCHED("store_from_float");
}

size_t aligned_bytes(miopenDataType_t type, size_t elements) {
  return (elements * data_type_size(type) + 255) / 256 * 256;
}

}  // namespace anydnn::cuda
