// Portable SGEMM tile: plain C++ the compiler vectorizes for the baseline target (SSE2 on
// x86-64). The fallback for CPUs without AVX2 and for non-x86 builds.
#include "backend/cpu/kernels/gemm_tile.hpp"

namespace anydnn::cpu {

namespace {

constexpr int kMr = 4;
constexpr int kNr = 16;

template <bool kOffset>
void tile(int kc, const float* a, long lda, const float* bsrc, const long* koff, float* c, long ldc,
          int m, int n, bool accumulate, const long* aoff = nullptr) {
  float acc[kMr][kNr] = {};
  for (int k = 0; k < kc; ++k) {
    float b[kNr] = {};
    const float* row = kOffset ? bsrc + koff[k] : bsrc + static_cast<long>(k) * kNr;
    // Offset rows are read only up to column n (the caller guarantees nothing past it).
    const int cols = kOffset ? n : kNr;
    for (int j = 0; j < cols; ++j)
      b[j] = row[j];
    for (int i = 0; i < kMr; ++i) {
      const float ai = i >= m ? 0.0f : aoff != nullptr ? a[aoff[i] + k] : a[i * lda + k];
      for (int j = 0; j < kNr; ++j)
        acc[i][j] += ai * b[j];
    }
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

void packed(int kc, const float* a, long lda, const float* bp, float* c, long ldc, int m, int n,
            bool accumulate) {
  tile<false>(kc, a, lda, bp, nullptr, c, ldc, m, n, accumulate);
}

// The portable path prefetches the stream up front (no per-k interleaving).
void packed_prefetch(int kc, const float* a, long lda, const float* bp, float* c, long ldc, int m,
                     int n, bool accumulate, const float* pf, long pf_lines) {
  for (long l = 0; l < pf_lines; ++l)
    __builtin_prefetch(pf + l * 16, 0, 2);
  tile<false>(kc, a, lda, bp, nullptr, c, ldc, m, n, accumulate);
}

void offset(int kc, const float* a, long lda, const float* b, const long* koff, float* c, long ldc,
            int m, int n, bool accumulate) {
  tile<true>(kc, a, lda, b, koff, c, ldc, m, n, accumulate);
}

void arows(int kc, const float* a, const long* aoff, const float* bp, float* c, long ldc, int m,
           int n, bool accumulate) {
  tile<false>(kc, a, 0, bp, nullptr, c, ldc, m, n, accumulate, aoff);
}

void packed_a(int kc, const float* ap, long lda, const float* bp, float* c, long ldc, int m, int n,
              bool accumulate) {
  // A(i, k) = ap[k * lda + i]: transposed into rows 512 k at a time, then the row tile (the
  // portable path favours simplicity over speed).
  float rows[kMr * 512];
  for (int k0 = 0; k0 < kc; k0 += 512) {
    const int kn = kc - k0 < 512 ? kc - k0 : 512;
    for (int i = 0; i < kMr; ++i)
      for (int k = 0; k < kn; ++k)
        rows[i * kn + k] = i < m ? ap[(k0 + k) * lda + i] : 0.0f;
    tile<false>(kn, rows, kn, bp + static_cast<long>(k0) * kNr, nullptr, c, ldc, m, n,
                accumulate || k0 > 0);
  }
}

}  // namespace

const GemmTiles& gemm_tiles_generic() {
  static const GemmTiles tiles{
      CpuIsa::Generic, 1, {{kMr, kNr, 1.0, &packed, &offset, &arows, &packed_a, &packed_prefetch}}};
  return tiles;
}

}  // namespace anydnn::cpu
