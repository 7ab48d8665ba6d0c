// Error checks and launch helpers shared by the CUDA backend's files. A failed CUDA or cuBLAS
// call becomes an anydnn Error (InternalError, or AllocFailed for out-of-memory) that the C API
// guard turns into a status; nothing here aborts.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/errors.hpp"

namespace anydnn::cuda {

inline void check_cuda(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  if (err == cudaErrorMemoryAllocation)
    ANYDNN_THROW(miopenStatusAllocFailed, what << ": " << cudaGetErrorString(err));
  ANYDNN_THROW(miopenStatusInternalError, what << ": " << cudaGetErrorString(err));
}

inline void check_cublas(cublasStatus_t st, const char* what) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  if (st == CUBLAS_STATUS_ALLOC_FAILED)
    ANYDNN_THROW(miopenStatusAllocFailed, what << ": " << cublasGetStatusString(st));
  ANYDNN_THROW(miopenStatusInternalError, what << ": " << cublasGetStatusString(st));
}

// After a kernel launch: reports launch-configuration errors at the call that caused them.
#define ANYDNN_CUDA_LAUNCHED(what) ::anydnn::cuda::check_cuda(cudaGetLastError(), what)

// Blocks for a grid-stride loop over n items: enough to fill the GPU, never more than needed.
inline unsigned grid_for(size_t n, unsigned block = 256) {
  const size_t blocks = (n + block - 1) / block;
  constexpr size_t kMax = 65535u * 32u;
  return static_cast<unsigned>(blocks == 0 ? 1 : (blocks < kMax ? blocks : kMax));
}

}  // namespace anydnn::cuda
