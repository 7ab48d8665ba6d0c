// Implicit-GEMM engine shared by the fast CPU convolution solvers: C = A * B where
//  - A (M x K) is read in place, row-major (weights: M output channels by K = C/G * taps), or
//    from a buffer the solver prepared (transposed or flipped weights, Winograd weights);
//  - B (K x N) is never built: each block of it is packed straight from the source tensor into
//    cache-sized panels (im2col fused into the packing). Row kk of B is a "tap": a source
//    channel and an offset; column j is a position (n, od, oh, ow) of a column grid;
//  - C (M x N) is written to an output grid that may be strided (backward data writes every
//    stride-th pixel of dx per phase).
// The register-blocked tiles of gemm_tile.hpp do the arithmetic; the plan chooses the tile
// shape, the cache blocking and how threads split M and N.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/implicit_pack.hpp"
#include "backend/cpu/kernels/row_epilogue.hpp"

namespace anydnn::cpu {

// Where C(m, j) goes: dst[n][m][od*step_d + off_d][oh*step_h + off_h][ow*step_w + off_w] for
// column j = (n, od, oh, ow) of the B grid; rows m are `row_stride` apart.
struct StridedC {
  float* dst = nullptr;
  long image_stride = 0, row_stride = 0;
  std::array<long, 3> dims{1, 1, 1};  // destination D, H, W
  std::array<int, 3> steps{1, 1, 1};
  std::array<int, 3> offsets{0, 0, 0};
};

class ConvGemmPlan {
 public:
  // Plans C (m x n) = A (m x k) * B (k x n) on `threads` threads with the tiles of `isa`.
  ConvGemmPlan(CpuIsa isa, long m, long k, long n, int threads);

  // Floats of scratch one thread needs (packed B panels and a C block), a multiple of 16.
  size_t thread_floats() const { return thread_floats_; }
  int threads() const { return tm_ * tn_; }
  const GemmTileShape& tile() const { return tile_; }

  // Thread t's share of C = A * B (C += A * B when `accumulate`): call it from every thread of
  // a parallel region with `threads()` threads; shares are disjoint. `scratch` is the thread's
  // own thread_floats() floats, 64-byte aligned. `epilogue` (not with `accumulate`) gets every
  // block of C once it is final, in place in C while it is still in cache (a dense C only).
  void run(int t, const float* a, long lda, const ImplicitB& b, const StridedC& c, float* scratch,
           bool accumulate, const RowEpilogue& epilogue = {}) const;

 private:
  GemmTileShape tile_;
  long m_ = 0, k_ = 0, n_ = 0;
  int kc_ = 0;
  long nc_ = 0;
  int tm_ = 1, tn_ = 1;
  size_t thread_floats_ = 0;
};

}  // namespace anydnn::cpu
