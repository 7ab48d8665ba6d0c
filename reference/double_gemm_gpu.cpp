#include "double_gemm_gpu.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace anydnn::ref::gpu {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

// A device buffer that only grows.
class Scratch {
 public:
  ~Scratch() { cudaFree(p_); }
  double* get(size_t n) {
    if (n > n_) {
      cudaFree(p_);
      p_ = nullptr;
      n_ = 0;
      check(cudaMalloc(&p_, n * sizeof(double)), "cudaMalloc (RNN reference)");
      n_ = n;
    }
    return p_;
  }

 private:
  double* p_ = nullptr;
  size_t n_ = 0;
};

class CudaDoubleGemm final : public DoubleGemm {
 public:
  CudaDoubleGemm() { check(cublasCreate(&blas_), "cublasCreate"); }
  ~CudaDoubleGemm() override {
    release();
    cublasDestroy(blas_);
  }

  void hold(const double* p, size_t n) override {
    release();
    check(cudaMalloc(&held_dev_, n * sizeof(double)), "cudaMalloc (held operand)");
    check(cudaMemcpy(held_dev_, p, n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    held_ = p;
    held_n_ = n;
  }
  void release() override {
    cudaFree(held_dev_);
    held_dev_ = nullptr;
    held_ = nullptr;
    held_n_ = 0;
  }

  void gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, const double* a, size_t lda,
            const double* b, size_t ldb, double beta, double* c, size_t ldc) override {
    if (m == 0 || n == 0) return;
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
    const size_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
    const size_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
    const double* da = device(a, span(a_rows, a_cols, lda), a_);
    const double* db = device(b, span(b_rows, b_cols, ldb), b_);
    const size_t c_n = span(m, n, ldc);
    double* dc = c_.get(c_n);
    if (beta != 0.0)
      check(cudaMemcpy(dc, c, c_n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    const double one = 1.0;
    if (k == 0) {
      check(cublasDscal(blas_, static_cast<int>(c_n), &beta, dc, 1), "cublasDscal");
    } else {
      check(cublasDgemm(blas_, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                        trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
                        static_cast<int>(m), static_cast<int>(k), &one, db, static_cast<int>(ldb),
                        da, static_cast<int>(lda), &beta, dc, static_cast<int>(ldc)),
            "cublasDgemm");
    }
    check(cudaMemcpy(c, dc, c_n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }

 private:
  static size_t span(size_t rows, size_t cols, size_t ld) {
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
  }
  // The device copy of [p, p + n): inside the held range, or copied into scratch.
  const double* device(const double* p, size_t n, Scratch& scratch) {
    if (held_ != nullptr && p >= held_ && p + n <= held_ + held_n_) return held_dev_ + (p - held_);
    double* d = scratch.get(n);
    check(cudaMemcpy(d, p, n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    return d;
  }

  cublasHandle_t blas_ = nullptr;
  const double* held_ = nullptr;
  double* held_dev_ = nullptr;
  size_t held_n_ = 0;
  Scratch a_, b_, c_;
};

}  // namespace

std::unique_ptr<DoubleGemm> make_double_gemm() {
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (devices == 0) throw std::runtime_error("no CUDA device");
  return std::make_unique<CudaDoubleGemm>();
}

}  // namespace anydnn::ref::gpu
