// Register-blocked SGEMM tiles: the innermost loop of every GEMM-shaped CPU convolution
// (implicit GEMM, Winograd, 1x1). One implementation per instruction set, each in its own
// file compiled for that set (gemm_tile_avx512.cpp, gemm_tile_avx2.cpp, gemm_tile_generic.cpp);
// gemm_tiles(isa) returns the set the configuration asks for.
//
// A tile computes C[0:m, 0:n] = A[0:m, 0:kc] * B[0:kc, 0:n] (or adds it to C) where
//  - A is read in place: A(i, k) = a[i * lda + k] (weights rows, no packing needed), or, for
//    GemmTileARowsFn, a[aoff[i] + k] (rows anywhere in one array);
//  - B is either a packed panel (GemmTileFn): kc rows of `nr` floats, 64-byte aligned, row k
//    at bp + k * nr, all nr columns read (columns n..nr-1 are never stored); or rows that are
//    shifted views of one array (GemmTileOffsetFn): row k at b + koff[k], read in place,
//    unaligned, nothing past column n-1 touched;
//  - C(i, j) = c[i * ldc + j]; m <= mr and n <= nr (edge tiles are cheaper variants).
#pragma once

#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

using GemmTileFn = void (*)(int kc, const float* a, long lda, const float* bp, float* c, long ldc,
                            int m, int n, bool accumulate);

using GemmTileOffsetFn = void (*)(int kc, const float* a, long lda, const float* b,
                                  const long* koff, float* c, long ldc, int m, int n,
                                  bool accumulate);

using GemmTileARowsFn = void (*)(int kc, const float* a, const long* aoff, const float* bp,
                                 float* c, long ldc, int m, int n, bool accumulate);

// A transposed, A(i, k) = ap[k * lda + i] (a packed panel of mr values per k when lda = mr,
// the classic micro-kernel form; nothing past row m is read), and B packed: for GEMMs whose
// broadcast side is packed (channel_gemm.hpp) or stored k-major (Winograd backward data).
using GemmTilePackedAFn = void (*)(int kc, const float* ap, long lda, const float* bp, float* c,
                                   long ldc, int m, int n, bool accumulate);

// GemmTileFn plus a stream to prefetch into L2 while the tile computes: pf_lines cache lines
// from pf, one every few k steps. The RNN step GEMM passes the next block of its weight
// panel. Issued in one burst before the tile instead, the prefetches held every line fill
// buffer (16 per core; a software prefetch takes one even for an L2 hint) and the tile
// waited on them: with them spread, LSTM H=2048's step GEMM went from 7.3 to 6.0 ms.
using GemmTilePrefetchFn = void (*)(int kc, const float* a, long lda, const float* bp, float* c,
                                    long ldc, int m, int n, bool accumulate, const float* pf,
                                    long pf_lines);

struct GemmTileShape {
  int mr = 0;          // rows of C per tile (A rows broadcast)
  int nr = 0;          // columns of C per tile (vector lanes times vectors)
  double speed = 1.0;  // relative throughput per flop, for the plans' cost models
  GemmTileFn fn = nullptr;
  GemmTileOffsetFn offset_fn = nullptr;
  GemmTileARowsFn arows_fn = nullptr;  // A rows by offset, B packed
  GemmTilePackedAFn packed_a_fn = nullptr;
  GemmTilePrefetchFn prefetch_fn = nullptr;  // `fn` that prefetches a stream meanwhile
};

// The tile shapes of one instruction set, preferred first; a GEMM plan picks the shape that
// wastes the least work on its M and N edges.
struct GemmTiles {
  CpuIsa isa = CpuIsa::Generic;
  int count = 0;
  GemmTileShape shapes[4];
};

const GemmTiles& gemm_tiles(CpuIsa isa);

// Leading dimension for an A matrix the caller lays out itself. A tile reads mr rows of A side
// by side; rows a multiple of 2 KiB apart map to a few L1 sets and evict each other (measured:
// 2x slower at 8 KiB), so such row lengths get 16 floats of padding.
inline long padded_lda(long row_floats) {
  return row_floats % 512 == 0 ? row_floats + 16 : row_floats;
}

// Per-instruction-set providers (one per file; the x86 ones exist only in x86 builds).
const GemmTiles& gemm_tiles_generic();
const GemmTiles& gemm_tiles_avx2();
const GemmTiles& gemm_tiles_avx512();

}  // namespace anydnn::cpu
