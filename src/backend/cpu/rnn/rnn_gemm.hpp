// The per-step GEMMs of an RNN, C (M x N) = A (M x K) * B, with a small M (the batch) and a B
// (the hidden weights) that every step of a call reuses: B is packed once into the register
// tiles' column panels (kernels/gemm_tile.hpp) and each step streams A through them. OpenBLAS
// repacks B on every call and reaches ~45% of its large-GEMM rate at M = 32 (measured with
// bench/rnn_vs_onednn); the packed panels avoid both.
#pragma once

#include <cstddef>

#include "backend/cpu/kernels/gemm_tile.hpp"

namespace anydnn::cpu {

// The RNN's large GEMMs (input projections and gradients over all steps) through the BLAS:
// C (m x n, row-major, ldc) = op(A) * op(B) + beta * C, op = transpose when ta / tb. k = 0
// leaves beta * C (C = 0 for beta = 0: a one-step sequence has no h_prev product).
void blas_gemm(bool ta, bool tb, size_t m, size_t n, size_t k, const float* a, size_t lda,
               const float* b, size_t ldb, float beta, float* c, size_t ldc);

class PackedGemmB {
 public:
  // B(k, j) = src[j * ld + k] when `transposed` (B = W^T for a row-major W of N x K), else
  // src[k * ld + j].
  // The panels go to `storage` (at least storage_floats(K, N) floats, any alignment: the start
  // is rounded up to 64 bytes): the caller's workspace, so that a call allocates nothing.
  PackedGemmB(CpuIsa isa, const float* src, long ld, int K, int N, bool transposed, float* storage);
  static size_t storage_floats(int K, int N) { return static_cast<size_t>(K) * (N + 64) + 16; }
  // C = A * B (or C += A * B), A(i, k) = a[i * lda + k], C(i, j) = c[i * ldc + j].
  void multiply(const float* a, long lda, int M, float* c, long ldc, bool accumulate,
                int threads) const;
  // The same product with A split by columns into pieces read from different arrays: piece i
  // supplies A's columns [k_begin, k_end) as a(row, k) = a[row * lda + k - k_begin]. GRU's
  // backward uses it to take the n-gate columns from their own array instead of copying.
  struct APiece {
    const float* a;
    long lda;
    int k_begin, k_end;
  };
  void multiply(const APiece* pieces, int count, int M, float* c, long ldc, bool accumulate,
                int threads) const;

 private:
  GemmTileShape tile_;
  int K_, N_, panels_, kc_;
  float* data_;
};

}  // namespace anydnn::cpu
