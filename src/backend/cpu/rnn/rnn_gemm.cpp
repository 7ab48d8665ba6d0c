#include "backend/cpu/rnn/rnn_gemm.hpp"

#include "backend/cpu/kernels/transpose.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace anydnn::cpu {

namespace {

constexpr int kMaxKc = 512;  // K block: an A tile row block and a B panel block stay in L1/L2

}  // namespace

void blas_gemm(bool ta, bool tb, size_t m, size_t n, size_t k, const float* a, size_t lda,
               const float* b, size_t ldb, float beta, float* c, size_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0.0f)
      for (size_t i = 0; i < m; ++i)
        std::memset(c + i * ldc, 0, n * sizeof(float));
    return;
  }
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

PackedGemmB::PackedGemmB(CpuIsa isa, const float* src, long ld, int K, int N, bool transposed,
                         float* storage)
    : tile_(gemm_tiles(isa).shapes[0]),
      K_(K),
      N_(N),
      panels_((N + tile_.nr - 1) / tile_.nr),
      kc_(std::min(K, kMaxKc)),
      data_(
          reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(storage) + 63) & ~uintptr_t{63})) {
  const int nr = tile_.nr;
  // Panel p: K rows of nr floats, row k at ((p * K) + k) * nr; zero beyond N.
  if (transposed) {
    // Panel p is the transpose of W rows j0..j0+width (16 x 16 register transposes where the
    // instruction set has them): scalar copies ran at ~7 GB/s, 9 ms for LSTM H=2048's W_h and
    // 39 ms for H=4096's.
#pragma omp parallel for
    for (int p = 0; p < panels_; ++p) {
      float* dst = data_ + static_cast<size_t>(p) * K * nr;
      const int j0 = p * nr, width = std::min(nr, N - j0);
      transpose(isa, src + static_cast<size_t>(j0) * ld, ld, dst, nr, width, K);
      for (int k = 0; width < nr && k < K; ++k) {
        float* row = dst + static_cast<size_t>(k) * nr;
        std::fill(row + width, row + nr, 0.0f);
      }
    }
    return;
  }
  // Threads take blocks of 16 source rows and deal each row out to every panel. Panel by
  // panel instead read a 192-byte piece of every row, a new page per read once rows are
  // >= 4 KiB long: 6.8 ms for LSTM H=2048's W_h (64 MB) and 42 ms for H=4096's.
  constexpr int kB = 16;
  const int kblocks = (K + kB - 1) / kB;
#pragma omp parallel for
  for (int kb = 0; kb < kblocks; ++kb) {
    const int k0 = kb * kB, kn = std::min(kB, K - k0);
    for (int p = 0; p < panels_; ++p) {
      const int j0 = p * nr, width = std::min(nr, N - j0);
      float* block = data_ + (static_cast<size_t>(p) * K + k0) * nr;
      for (int kk = 0; kk < kn; ++kk) {
        float* row = block + kk * nr;
        std::memcpy(row, src + static_cast<size_t>(k0 + kk) * ld + j0, width * sizeof(float));
        std::fill(row + width, row + nr, 0.0f);
      }
    }
  }
}

void PackedGemmB::multiply(const float* a, long lda, int M, float* c, long ldc, bool accumulate,
                           int threads) const {
  const APiece whole{a, lda, 0, K_};
  multiply(&whole, 1, M, c, ldc, accumulate, threads);
}

void PackedGemmB::multiply(const APiece* pieces, int count, int M, float* c, long ldc,
                           bool accumulate, int threads) const {
  if (M <= 0 || N_ <= 0) return;
  const int nr = tile_.nr, mr = tile_.mr;
  const int row_blocks = (M + mr - 1) / mr;
  // A work unit is one panel and a group of row blocks; inside it the K blocks are the outer
  // loop, so each block of the panel (kc x nr) is loaded once and serves every row block of
  // the group from L1. (Row blocks outside, the whole panel per row block, re-streamed panels
  // of K x nr floats that outgrow L2 once K is large: 3 MB each for LSTM H=4096's backward,
  // whose weights then came from memory once per row block.) Row blocks are split into groups
  // only when there are too few panels to keep every thread busy.
  const int groups = std::clamp((2 * std::max(threads, 1) + panels_ - 1) / panels_, 1, row_blocks);
  const int per_group = (row_blocks + groups - 1) / groups;
  const long work = static_cast<long>(panels_) * groups;
#pragma omp parallel for schedule(static) num_threads(threads) if (work > 1)
  for (long w = 0; w < work; ++w) {
    const int p = static_cast<int>(w / groups), g = static_cast<int>(w % groups);
    const int rb0 = g * per_group, rb1 = std::min(row_blocks, rb0 + per_group);
    const int j0 = p * nr, n = std::min(nr, N_ - j0);
    const float* panel = data_ + static_cast<size_t>(p) * K_ * nr;
    bool acc = accumulate;
    for (int pi = 0; pi < count; ++pi) {
      const APiece& piece = pieces[pi];
      for (int k0 = piece.k_begin; k0 < piece.k_end; k0 += kc_) {
        const int kc = std::min(kc_, piece.k_end - k0);
        // The next block of the panel (past the panel's end: the start of the next panel,
        // which follows it in memory and is usually this thread's next work unit) is
        // prefetched into L2, a slice per row block, spread over the tile's k loop, while
        // this block computes. The hardware prefetchers stop at page ends: without this LSTM
        // H=2048's backward step GEMM (M=64, K=8192) took 9.0 ms, with the slice prefetched
        // in one burst before each tile 7.3 ms, spread 6.0 ms.
        const float* next = panel + static_cast<size_t>(k0 + kc) * nr;
        const long lines = static_cast<long>(kc) * nr / 16;
        const int nrb = rb1 - rb0;
        for (int rb = rb0; rb < rb1; ++rb) {
          const int i0 = rb * mr, m = std::min(mr, M - i0);
          const long l0 = lines * (rb - rb0) / nrb, l1 = lines * (rb - rb0 + 1) / nrb;
          tile_.prefetch_fn(kc, piece.a + i0 * piece.lda + (k0 - piece.k_begin), piece.lda,
                            panel + static_cast<size_t>(k0) * nr, c + i0 * ldc + j0, ldc, m, n, acc,
                            next + l0 * 16, l1 - l0);
        }
        acc = true;
      }
    }
    if (!acc)  // no columns at all: C = 0 (or unchanged when accumulating)
      for (int i = rb0 * mr; i < std::min(M, rb1 * mr); ++i)
        std::fill_n(c + i * ldc + j0, n, 0.0f);
  }
}

}  // namespace anydnn::cpu
