// GEMM whose B rows are shifted windows of one array:
//   B(kk, q) = src[n * image_stride + koff[kk] + q],  q in [0, cols) for each image n.
// A convolution becomes this after x is copied into a zero-padded, stride-phase-split array
// (conv/implicit_gemm_shifted_fwd.cpp): a filter tap is then a constant shift, and a column q
// is an output position on a grid as wide as that array, whose last columns are discarded.
// Each block of B is copied into panels row by row (a contiguous run per row, so packing costs
// a plain copy) and multiplied by the packed tiles of gemm_tile.hpp.
#pragma once

#include <cstddef>

#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/row_epilogue.hpp"

namespace anydnn::cpu {

struct ShiftedB {
  const float* src = nullptr;
  long image_stride = 0;
  long images = 1;
  long cols = 0;               // columns per image
  const long* koff = nullptr;  // rows
  long rows = 0;
};

// Column q of image n is output (oh, ow) = (q / grid_w, q % grid_w), kept when ow < out_w:
// C(m, q) -> dst[n * image_stride + m * row_stride + oh * out_w + ow].
struct ShiftedC {
  float* dst = nullptr;
  long image_stride = 0, row_stride = 0;
  long grid_w = 1, out_w = 1;
};

class ShiftedGemmPlan {
 public:
  ShiftedGemmPlan(CpuIsa isa, long m, long k, long cols, long images, int threads);

  size_t thread_floats() const { return thread_floats_; }
  int threads() const { return tm_ * tn_; }

  // Thread t's share of C = A * B (A(i, kk) = a[i * lda + kk]); call from every thread of a
  // parallel region of threads() threads. `scratch`: the thread's thread_floats() floats.
  // `epilogue` gets every block of C (the kept columns) once it is final, in place.
  void run(int t, const float* a, long lda, const ShiftedB& b, const ShiftedC& c, float* scratch,
           const RowEpilogue& epilogue = {}) const;

 private:
  GemmTileShape tile_;
  long m_ = 0, k_ = 0, cols_ = 0, images_ = 0;
  int kc_ = 0;
  long nc_ = 0, blocks_per_image_ = 1, panel_floats_ = 0;
  int tm_ = 1, tn_ = 1;
  size_t thread_floats_ = 0;
};

}  // namespace anydnn::cpu
