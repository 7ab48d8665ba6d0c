// Implicit-GEMM engine with the vector lanes along the output channels:
//   C^T [pixels x M] = B^T [pixels x K] * Wt [K x M]
// B is the implicit im2col matrix of implicit_pack.hpp, packed block by block into micro-panels
// of mr pixels that the tile broadcasts (its packed-A entry point); Wt is the weights packed once
// per call into panels of nr channels that the tile loads as vectors. Every vector lane is a
// real output channel (channel counts are multiples of 16 in practice) whatever the number of
// pixels, so small feature maps (7x7, 14x14) lose nothing to ragged tiles, unlike conv_gemm.hpp
// whose lanes are pixels. C^T is accumulated per block and transposed into NCHW on the way out.
#pragma once

#include <cstddef>

#include "backend/cpu/kernels/conv_gemm.hpp"
#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/implicit_pack.hpp"
#include "backend/cpu/kernels/row_epilogue.hpp"

namespace anydnn::cpu {

class ChannelGemmPlan {
 public:
  // C^T (n pixels x m channels) = B^T (n x k) * Wt (k x m) on `threads` threads.
  ChannelGemmPlan(CpuIsa isa, long m, long k, long n, int threads);

  int threads() const { return tm_ * tn_; }
  // Floats of the packed weights (m rounded up to the panel width, times k).
  size_t weight_floats() const;
  size_t thread_floats() const { return thread_floats_; }

  // Packs Wt from weights stored as rows of channels: Wt(kk, c) = w[c * ldw + kk]. Panels are
  // shared out over the threads (t of threads()); the caller synchronizes before run().
  void pack_weights_from_rows(const float* w, long ldw, float* panels, int t) const;
  // Packs Wt from weights stored by kk: Wt(kk, c) = w[kk_off[kk] + c * c_stride].
  void pack_weights_from_columns(const float* w, const long* kk_off, long c_stride, float* panels,
                                 int t) const;

  // Thread t's share of C = (B^T Wt)^T, written to c (overwritten). `epilogue` gets each run of
  // C right after it is transposed into place (a dense C only).
  void run(int t, const float* panels, const ImplicitB& b, const StridedC& c, float* scratch,
           const RowEpilogue& epilogue = {}) const;

 private:
  CpuIsa isa_;
  GemmTileShape tile_;
  long m_ = 0, k_ = 0, n_ = 0, m_pad_ = 0;
  int kc_ = 0;
  long nc_ = 0;
  int tm_ = 1, tn_ = 1;
  long m_share_ = 0;  // channels per thread row of the grid, a multiple of nr
  size_t thread_floats_ = 0;
};

}  // namespace anydnn::cpu
