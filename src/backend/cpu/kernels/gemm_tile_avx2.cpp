// AVX2 + FMA SGEMM tiles (compiled with -mavx2 -mfma; called only when the CPU has them). Same
// rules as gemm_tile_avx512.cpp: everything in an anonymous namespace, no shared inline code.
#include <immintrin.h>

#include "backend/cpu/kernels/gemm_tile.hpp"

namespace anydnn::cpu {

namespace {

// As in gemm_tile_avx512.cpp.
enum class BSource { Packed, Offset, OffsetMasked };
enum class ASource { Rows, RowOffsets, Packed };

// kPf: also prefetches pf_lines cache lines from pf into L2, one every kc / pf_lines k steps
// (at most one per step; any left over after the loop go at the end).
template <int MR, int NV, BSource kSrc, ASource kA = ASource::Rows, bool kPf = false>
void tile(int kc, const float* a, long lda, const float* b, const long* koff, float* c, long ldc,
          int n, bool accumulate, const long* aoff = nullptr, const float* pf = nullptr,
          long pf_lines = 0) {
  const int pf_gap = pf_lines <= 0 ? kc + 1 : pf_lines >= kc ? 1 : static_cast<int>(kc / pf_lines);
  long pf_done = 0;
  int pf_next = 0;
  const float* arow[MR];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
    arow[i] = kA == ASource::RowOffsets ? a + aoff[i] : a + i * lda;
  __m256i masks[NV];
  if constexpr (kSrc == BSource::OffsetMasked) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      masks[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - v * 8), lanes);
  }
  __m256 acc[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm256_setzero_ps();
  for (int k = 0; k < kc; ++k) {
    if constexpr (kPf) {
      if (k == pf_next && pf_done < pf_lines) {
        _mm_prefetch(reinterpret_cast<const char*>(pf + pf_done * 16), _MM_HINT_T1);
        ++pf_done;
        pf_next += pf_gap;
      }
    }
    __m256 bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      if constexpr (kSrc == BSource::Packed)
        bv[v] = _mm256_load_ps(b + (static_cast<long>(k) * NV + v) * 8);
      else if constexpr (kSrc == BSource::Offset)
        bv[v] = _mm256_loadu_ps(b + koff[k] + v * 8);
      else
        bv[v] = _mm256_maskload_ps(b + koff[k] + v * 8, masks[v]);
    }
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(kA == ASource::Packed ? a + k * lda + i : arow[i] + k);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v)
        acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  if constexpr (kPf)
    for (; pf_done < pf_lines; ++pf_done)
      _mm_prefetch(reinterpret_cast<const char*>(pf + pf_done * 16), _MM_HINT_T1);
  if (n == NV * 8) {
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        float* p = c + i * ldc + v * 8;
        _mm256_storeu_ps(p, accumulate ? _mm256_add_ps(_mm256_loadu_ps(p), acc[i][v]) : acc[i][v]);
      }
    return;
  }
  alignas(32) float row[NV * 8];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      _mm256_store_ps(row + v * 8, acc[i][v]);
    float* p = c + i * ldc;
    for (int j = 0; j < n; ++j)
      p[j] = accumulate ? p[j] + row[j] : row[j];
  }
}

template <int MR, int NV, BSource kSrc, ASource kA = ASource::Rows, bool kPf = false, int M = MR>
void tile_rows(int kc, const float* a, long lda, const float* b, const long* koff, float* c,
               long ldc, int m, int n, bool accumulate, const long* aoff = nullptr,
               const float* pf = nullptr, long pf_lines = 0) {
  if constexpr (M >= 1) {
    if (m == M)
      return tile<M, NV, kSrc, kA, kPf>(kc, a, lda, b, koff, c, ldc, n, accumulate, aoff, pf,
                                        pf_lines);
    return tile_rows<MR, NV, kSrc, kA, kPf, M - 1>(kc, a, lda, b, koff, c, ldc, m, n, accumulate,
                                                   aoff, pf, pf_lines);
  }
}

template <int MR, int NV>
void packed(int kc, const float* a, long lda, const float* bp, float* c, long ldc, int m, int n,
            bool accumulate) {
  tile_rows<MR, NV, BSource::Packed>(kc, a, lda, bp, nullptr, c, ldc, m, n, accumulate);
}

template <int MR, int NV>
void packed_prefetch(int kc, const float* a, long lda, const float* bp, float* c, long ldc, int m,
                     int n, bool accumulate, const float* pf, long pf_lines) {
  tile_rows<MR, NV, BSource::Packed, ASource::Rows, true>(kc, a, lda, bp, nullptr, c, ldc, m, n,
                                                          accumulate, nullptr, pf, pf_lines);
}

template <int MR, int NV>
void arows(int kc, const float* a, const long* aoff, const float* bp, float* c, long ldc, int m,
           int n, bool accumulate) {
  tile_rows<MR, NV, BSource::Packed, ASource::RowOffsets>(kc, a, 0, bp, nullptr, c, ldc, m, n,
                                                          accumulate, aoff);
}

// A transposed: A(i, k) = a[k * lda + i] (a packed panel has lda = MR).
template <int MR, int NV>
void packed_a(int kc, const float* ap, long lda, const float* bp, float* c, long ldc, int m, int n,
              bool accumulate) {
  tile_rows<MR, NV, BSource::Packed, ASource::Packed>(kc, ap, lda, bp, nullptr, c, ldc, m, n,
                                                      accumulate);
}

template <int MR, int NV>
void offset(int kc, const float* a, long lda, const float* b, const long* koff, float* c, long ldc,
            int m, int n, bool accumulate) {
  if (n == NV * 8)
    tile_rows<MR, NV, BSource::Offset>(kc, a, lda, b, koff, c, ldc, m, n, accumulate);
  else
    tile_rows<MR, NV, BSource::OffsetMasked>(kc, a, lda, b, koff, c, ldc, m, n, accumulate);
}

}  // namespace

const GemmTiles& gemm_tiles_avx2() {
  static const GemmTiles tiles{CpuIsa::Avx2,
                               3,
                               {{6, 16, 1.0, &packed<6, 2>, &offset<6, 2>, &arows<6, 2>,
                                 &packed_a<6, 2>, &packed_prefetch<6, 2>},
                                {4, 24, 0.95, &packed<4, 3>, &offset<4, 3>, &arows<4, 3>,
                                 &packed_a<4, 3>, &packed_prefetch<4, 3>},
                                {12, 8, 0.85, &packed<12, 1>, &offset<12, 1>, &arows<12, 1>,
                                 &packed_a<12, 1>, &packed_prefetch<12, 1>}}};
  return tiles;
}

}  // namespace anydnn::cpu
