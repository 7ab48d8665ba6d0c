// Double-precision matrix products for the references whose naive loops are too slow at full
// size (the RNN reference: DeepBench GRU layers are ~9 TFLOP in double). Row-major, MIOpen's
// and BLAS's meaning of the arguments: C (M x N) = beta * C + op(A) (M x K) * op(B) (K x N).
// The CPU one is OpenBLAS's dgemm; ref::gpu::make_double_gemm (double_gemm_gpu.hpp) runs the same
// products with cuBLAS's Dgemm on a CUDA device. Both accumulate in double, independently of the
// library's fp32/fp16 kernels, so the references stay oracles.
#pragma once

#include <cstddef>

namespace anydnn::ref {

class DoubleGemm {
 public:
  virtual ~DoubleGemm() = default;
  virtual void gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, const double* a,
                    size_t lda, const double* b, size_t ldb, double beta, double* c,
                    size_t ldc) = 0;
  // [p, p + n) stays unchanged until release(): an implementation may keep a copy of it (the GPU
  // one keeps the weights on the device instead of copying them for every step's product).
  virtual void hold(const double* /*p*/, size_t /*n*/) {}
  virtual void release() {}
};

// OpenBLAS's dgemm on the host (threads: OMP_NUM_THREADS). Stateless: one object serves all.
DoubleGemm& cpu_double_gemm();

}  // namespace anydnn::ref
