#include "backend/cpu/conv/gemm_util.hpp"

#include <cblas.h>

#include <algorithm>

#include "backend/cpu/kernels/gemm_tile.hpp"
#include "core/data_type.hpp"

namespace anydnn::cpu {

void sgemm_column_share(int t, int nt, bool a_trans, bool b_trans, int m, int n, int k, float alpha,
                        const float* a, int lda, const float* b, int ldb, float beta, float* c,
                        int ldc, const RowEpilogue& epilogue) {
  // Shares are multiples of 16 columns (one AVX-512 vector) where possible.
  const int chunks = (n + 15) / 16;
  const int first = static_cast<int>(static_cast<long>(chunks) * t / nt) * 16;
  const int last = std::min(n, static_cast<int>(static_cast<long>(chunks) * (t + 1) / nt) * 16);
  if (first >= last || m == 0) return;
  // With an epilogue: chunks of C of about 256 KiB (m rows), a multiple of 16 columns.
  const int step = epilogue ? std::max(16, (65536 / std::max(m, 1)) / 16 * 16) : last - first;
  for (int c0 = first; c0 < last; c0 += step) {
    const int cols = std::min(step, last - c0);
    const float* b_share = b_trans ? b + static_cast<long>(c0) * ldb : b + c0;
    cblas_sgemm(CblasRowMajor, a_trans ? CblasTrans : CblasNoTrans,
                b_trans ? CblasTrans : CblasNoTrans, m, cols, k, alpha, a, lda, b_share, ldb, beta,
                c + c0, ldc);
    epilogue(c + c0, ldc, m, cols, 0);
  }
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
