#include "double_gemm.hpp"

#include <cblas.h>

namespace anydnn::ref {

namespace {

class CpuDoubleGemm final : public DoubleGemm {
 public:
  void gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, const double* a, size_t lda,
            const double* b, size_t ldb, double beta, double* c, size_t ldc) override {
    if (m == 0 || n == 0) return;
    if (k == 0) {  // BLAS leaves C alone only for beta == 1; say what the product means
      for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j)
          c[i * ldc + j] = beta == 0.0 ? 0.0 : beta * c[i * ldc + j];
      return;
    }
    cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta,
                c, static_cast<int>(ldc));
  }
};

}  // namespace

DoubleGemm& cpu_double_gemm() {
  // Stateless, so sharing one instance is safe from any thread.
  static CpuDoubleGemm g;
  return g;
}

}  // namespace anydnn::ref
