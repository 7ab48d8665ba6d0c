// cuBLAS wrappers and small helpers of the CUDA RNN passes (the counterpart of
// backend/cpu/rnn/rnn_gemm.hpp): row-major fp32 GEMMs in full fp32 (MIOpen's RNN tolerances
// leave no room for TF32), deterministic column sums, and small index tables on the device.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace anydnn::cuda {

// C (m x n, row-major, ldc) = op(A) * op(B) + beta * C, op = transpose when ta / tb. k = 0
// leaves beta * C (C = 0 for beta = 0). Runs on the handle's stream in CUBLAS_DEFAULT_MATH
// (restoring whatever mode the handle had).
void rnn_gemm(cublasHandle_t h, bool ta, bool tb, size_t m, size_t n, size_t k, const float* a,
              size_t lda, const float* b, size_t ldb, float beta, float* c, size_t ldc,
              cudaStream_t stream);

// out[j] = sum over rows of a[r * lda + j], in a fixed order (no atomics: reproducible).
void column_sums(const float* a, size_t rows, size_t cols, size_t lda, float* out,
                 cudaStream_t stream);

// A small int table uploaded to the device once per call (stream-ordered allocation, freed in
// stream order when the table goes out of scope, so nothing waits for the device).
class DeviceIntTable {
 public:
  DeviceIntTable(const std::vector<int>& host, cudaStream_t stream);
  ~DeviceIntTable();
  DeviceIntTable(const DeviceIntTable&) = delete;
  DeviceIntTable& operator=(const DeviceIntTable&) = delete;
  const int* get() const { return ptr_; }

 private:
  int* ptr_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace anydnn::cuda
