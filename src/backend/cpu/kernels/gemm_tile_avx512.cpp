// AVX-512 SGEMM tiles (compiled with -mavx512f and friends; called only when the CPU has them).
// Rule for every *_avx512.cpp / *_avx2.cpp file: define everything in an anonymous namespace
// and include no header with inline functions or templates shared with baseline code (not even
// <algorithm>), so that no AVX-512 copy of a shared inline function can be picked by the linker
// for code that runs on older CPUs.
#include <immintrin.h>

#include "backend/cpu/kernels/gemm_tile.hpp"

namespace anydnn::cpu {

namespace {

// Where row k of B comes from.
enum class BSource {
  Packed,        // b + k * NV * 16, aligned
  Offset,        // b + koff[k], unaligned
  OffsetMasked,  // b + koff[k], only the first n columns read (no access past them)
};

// Where A(i, k) comes from.
enum class ASource {
  Rows,        // a[i * lda + k]
  RowOffsets,  // a[aoff[i] + k]: any rows of one array
  Packed,      // a[k * lda + i]: a packed panel, MR values per k (lda unused)
};

// MR x (NV * 16) tile: MR * NV accumulators stay in registers for the whole k loop; each k
// step loads NV vectors of B and broadcasts MR elements of A.
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
  __mmask16 masks[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    const int left = n - v * 16;
    masks[v] = left >= 16  ? __mmask16(0xffff)
               : left <= 0 ? __mmask16(0)
                           : __mmask16((1u << left) - 1);
  }
  __m512 acc[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm512_setzero_ps();
#pragma GCC unroll 4
  for (int k = 0; k < kc; ++k) {
    if constexpr (kPf) {
      if (k == pf_next && pf_done < pf_lines) {
        _mm_prefetch(reinterpret_cast<const char*>(pf + pf_done * 16), _MM_HINT_T1);
        ++pf_done;
        pf_next += pf_gap;
      }
    }
    __m512 bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      if constexpr (kSrc == BSource::Packed)
        bv[v] = _mm512_load_ps(b + (static_cast<long>(k) * NV + v) * 16);
      else if constexpr (kSrc == BSource::Offset)
        bv[v] = _mm512_loadu_ps(b + koff[k] + v * 16);
      else
        bv[v] = _mm512_maskz_loadu_ps(masks[v], b + koff[k] + v * 16);
    }
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(kA == ASource::Packed ? a[k * lda + i] : arow[i][k]);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v)
        acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  if constexpr (kPf)
    for (; pf_done < pf_lines; ++pf_done)
      _mm_prefetch(reinterpret_cast<const char*>(pf + pf_done * 16), _MM_HINT_T1);
  if (n == NV * 16) {
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        float* p = c + i * ldc + v * 16;
        _mm512_storeu_ps(p, accumulate ? _mm512_add_ps(_mm512_loadu_ps(p), acc[i][v]) : acc[i][v]);
      }
    return;
  }
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    if (masks[v] == 0) break;
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      float* p = c + i * ldc + v * 16;
      const __m512 r =
          accumulate ? _mm512_add_ps(_mm512_maskz_loadu_ps(masks[v], p), acc[i][v]) : acc[i][v];
      _mm512_mask_storeu_ps(p, masks[v], r);
    }
  }
}

// Edge rows: a tile of m < MR rows is its own instantiation, so its loop stays unrolled.
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
  if (n == NV * 16)
    tile_rows<MR, NV, BSource::Offset>(kc, a, lda, b, koff, c, ldc, m, n, accumulate);
  else
    tile_rows<MR, NV, BSource::OffsetMasked>(kc, a, lda, b, koff, c, ldc, m, n, accumulate);
}

}  // namespace

const GemmTiles& gemm_tiles_avx512() {
  // Measured alone on one core with B in L2 (kc 256): 8x48, 6x64, 12x32 ~185-195 GFLOP/s (of
  // a 217 FMA peak), 24x16 ~140.
  static const GemmTiles tiles{CpuIsa::Avx512,
                               4,
                               {{8, 48, 1.0, &packed<8, 3>, &offset<8, 3>, &arows<8, 3>,
                                 &packed_a<8, 3>, &packed_prefetch<8, 3>},
                                {12, 32, 0.97, &packed<12, 2>, &offset<12, 2>, &arows<12, 2>,
                                 &packed_a<12, 2>, &packed_prefetch<12, 2>},
                                {6, 64, 0.97, &packed<6, 4>, &offset<6, 4>, &arows<6, 4>,
                                 &packed_a<6, 4>, &packed_prefetch<6, 4>},
                                {24, 16, 0.75, &packed<24, 1>, &offset<24, 1>, &arows<24, 1>,
                                 &packed_a<24, 1>, &packed_prefetch<24, 1>}}};
  return tiles;
}

}  // namespace anydnn::cpu
