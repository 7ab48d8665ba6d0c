#include "backend/cpu/conv/gemm_util.hpp"

#include <cblas.h>

#include <algorithm>

#include "backend/cpu/kernels/gemm_tile.hpp"
#include "core/data_type.hpp"

namespace anydnn::cpu {

Applicability gemm_problem_support(const ConvProblem& p) {
  ANYDNN_REJECT_IF(!is_float_like(p.data_type()), "needs float, half or bfloat16 data");
  const std::string layout = p.spatial_dims() == 2 ? "NCHW" : "NCDHW";
  ANYDNN_REJECT_IF(!p.x().is_packed_layout(layout) || !p.w().is_packed_layout(layout) ||
                       !p.y().is_packed_layout(layout),
                   "needs packed " + layout + " tensors");
  const GemmShape s(p);
  constexpr size_t kIntMax = 0x7fffffff;
  ANYDNN_REJECT_IF(s.rows > kIntMax || s.pixels > kIntMax || s.k_per_group > kIntMax,
                   "GEMM dimensions exceed the int range of cblas");
  return Applicability::yes();
}

Applicability gemm_1x1_support(const ConvProblem& p) {
  ANYDNN_REJECT_IF(p.filter_size() != (std::array<size_t, 3>{1, 1, 1}), "filter is not 1x1");
  ANYDNN_REJECT_IF(p.strides() != (std::array<int, 3>{1, 1, 1}), "stride is not 1");
  ANYDNN_REJECT_IF(p.pads() != (std::array<int, 3>{0, 0, 0}), "padding is not 0");
  return gemm_problem_support(p);
}

GemmShape::GemmShape(const ConvProblem& p) {
  const auto& f = p.filter_size();
  const auto& o = p.out_size();
  const auto& i = p.in_size();
  groups = p.groups();
  c_per_group = p.in_channels() / groups;
  k_per_group = p.out_channels() / groups;
  taps = f[0] * f[1] * f[2];
  rows = c_per_group * taps;
  pixels = o[0] * o[1] * o[2];
  x_image = p.in_channels() * i[0] * i[1] * i[2];
  y_image = p.out_channels() * pixels;
}

void sgemm_column_share(int t, int nt, bool a_trans, bool b_trans, int m, int n, int k, float alpha,
                        const float* a, int lda, const float* b, int ldb, float beta, float* c,
                        int ldc) {
  // Shares are multiples of 16 columns (one AVX-512 vector) where possible.
  const int chunks = (n + 15) / 16;
  const int first = static_cast<int>(static_cast<long>(chunks) * t / nt) * 16;
  const int last = std::min(n, static_cast<int>(static_cast<long>(chunks) * (t + 1) / nt) * 16);
  if (first >= last || m == 0) return;
  const float* b_share = b_trans ? b + static_cast<long>(first) * ldb : b + first;
  cblas_sgemm(CblasRowMajor, a_trans ? CblasTrans : CblasNoTrans,
              b_trans ? CblasTrans : CblasNoTrans, m, last - first, k, alpha, a, lda, b_share, ldb,
              beta, c + first, ldc);
}

size_t gemm_tile_columns(size_t rows, size_t columns, size_t bytes) {
  size_t tile = bytes / (std::max<size_t>(rows, 1) * sizeof(float));
  tile = std::max<size_t>(64, tile / 16 * 16);
  return std::min(tile, columns);
}

WeightsA::WeightsA(long rows_, long row_floats_)
    : rows(rows_), row_floats(row_floats_), lda(padded_lda(row_floats_)) {}

size_t WeightsA::buffer_floats() const {
  return lda == row_floats ? 0 : static_cast<size_t>((rows * lda + 15) / 16 * 16);
}

const float* WeightsA::prepare(const float* w, float* buffer) const {
  if (lda == row_floats) return w;
#pragma omp for schedule(static)
  for (long r = 0; r < rows; ++r)
    std::copy(w + r * row_floats, w + (r + 1) * row_floats, buffer + r * lda);
  return buffer;
}

size_t staging_floats(const ConvProblem& p) {
  if (p.data_type() == miopenFloat) return 0;
  const GemmShape s(p);
  return p.batch() * (s.x_image + s.y_image) + p.out_channels() * s.rows;
}

}  // namespace anydnn::cpu
