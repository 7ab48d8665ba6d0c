#include "backend/cpu/kernels/shifted_gemm.hpp"

#include <algorithm>
#include <limits>

namespace anydnn::cpu {

namespace {

constexpr long kBlockFloats = 192 * 1024;  // C block per thread (rows x nc), within L2
constexpr int kMaxKc = 256;                // A tile rows (mr x kc) stay in L1
constexpr long kMaxNc = 1536;              // B window per k block stays in L2

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}
long round_up(long a, long b) {
  return ceil_div(a, b) * b;
}

}  // namespace

ShiftedGemmPlan::ShiftedGemmPlan(CpuIsa isa, long m, long k, long cols, long images, int threads)
    : m_(m), k_(k), cols_(cols), images_(images) {
  const GemmTiles& tiles = gemm_tiles(isa);
  threads = std::max(1, threads);
  double best = std::numeric_limits<double>::max();
  for (int s = 0; s < tiles.count; ++s) {
    const GemmTileShape& shape = tiles.shapes[s];
    const double efficiency = shape.speed;
    for (int tm = 1; tm <= threads; ++tm) {
      if (threads % tm != 0) continue;
      const int tn = threads / tm;
      // Tiles never cross images: each image is padded to whole tiles.
      const long col_tiles = images * ceil_div(cols, shape.nr);
      const double mt = static_cast<double>(ceil_div(ceil_div(m, shape.mr), tm) * shape.mr);
      const double nt = static_cast<double>(ceil_div(col_tiles, tn) * shape.nr);
      const double cost = mt * nt * static_cast<double>(k) / efficiency;
      if (cost < best) {
        best = cost;
        tile_ = shape;
        tm_ = tm;
        tn_ = tn;
      }
    }
  }
  const int kblocks = static_cast<int>(ceil_div(std::max(k, 1L), kMaxKc));
  kc_ = static_cast<int>(std::max(1L, ceil_div(std::max(k, 1L), kblocks)));
  const long rows = std::min(m_, ceil_div(ceil_div(m_, tile_.mr), tm_) * tile_.mr);
  const long fit =
      std::max<long>(tile_.nr, kBlockFloats / std::max(1L, rows) / tile_.nr * tile_.nr);
  const long max_nc = std::min(kMaxNc / tile_.nr * tile_.nr, fit);
  // Blocks of an image are equal-sized, and there are enough of them for every thread.
  blocks_per_image_ =
      std::max(ceil_div(cols_, max_nc), ceil_div(static_cast<long>(tn_), std::max(1L, images_)));
  nc_ = round_up(std::max(1L, ceil_div(cols_, blocks_per_image_)), tile_.nr);
  blocks_per_image_ = ceil_div(std::max(1L, cols_), nc_);
  // Packed B panels (kc x nc, 64-byte multiples), then the C block (rows x nc).
  panel_floats_ = round_up(static_cast<long>(kc_) * nc_, 16);
  thread_floats_ = static_cast<size_t>(panel_floats_ + round_up(rows * nc_, 16));
}

void ShiftedGemmPlan::run(int t, const float* a, long lda, const ShiftedB& b, const ShiftedC& c,
                          float* scratch, const RowEpilogue& epilogue) const {
  const int mr = tile_.mr, nr = tile_.nr;
  const int tmi = t / tn_, tni = t % tn_;
  const long m_tiles = ceil_div(m_, mr);
  const long m0 = m_tiles * tmi / tm_ * mr, m1 = std::min(m_, m_tiles * (tmi + 1) / tm_ * mr);
  const long items = images_ * blocks_per_image_;
  const long it0 = items * tni / tn_, it1 = items * (tni + 1) / tn_;
  if (m0 >= m1 || k_ == 0) return;
  // Without discarded columns, C blocks are stored straight into the destination.
  const bool direct = c.grid_w == c.out_w;
  for (long item = it0; item < it1; ++item) {
    const long n = item / blocks_per_image_;
    const long q0 = item % blocks_per_image_ * nc_;
    if (q0 >= cols_) continue;
    const long ncols = std::min(nc_, cols_ - q0);
    const float* src = b.src + n * b.image_stride + q0;
    float* panels = scratch;
    float* cbuf = scratch + panel_floats_;
    float* dst = direct ? c.dst + n * c.image_stride + q0 + m0 * c.row_stride : cbuf;
    const long ldc = direct ? c.row_stride : nc_;
    const long npanels = ceil_div(ncols, nr);
    for (long kb = 0; kb < k_; kb += kc_) {
      const int kc = static_cast<int>(std::min<long>(kc_, k_ - kb));
      // Every row of B is a contiguous run of the source: the panels are plain copies.
      for (long p = 0; p < npanels; ++p) {
        const long j0 = p * nr;
        const long width = std::min<long>(nr, ncols - j0);
        float* panel = panels + p * kc * nr;
        for (int kk = 0; kk < kc; ++kk) {
          float* __restrict d = panel + static_cast<long>(kk) * nr;
          const float* __restrict from = src + b.koff[kb + kk] + j0;
          for (long j = 0; j < width; ++j)
            d[j] = from[j];
          for (long j = width; j < nr; ++j)
            d[j] = 0.0f;
        }
      }
      for (long i0 = m0; i0 < m1; i0 += mr) {
        const int rows = static_cast<int>(std::min<long>(mr, m1 - i0));
        const float* a_tile = a + i0 * lda + kb;
        float* c_rows = dst + (i0 - m0) * ldc;
        for (long p = 0; p < npanels; ++p) {
          const int cols = static_cast<int>(std::min<long>(nr, ncols - p * nr));
          tile_.fn(kc, a_tile, lda, panels + p * kc * nr, c_rows + p * nr, ldc, rows, cols, kb > 0);
        }
        // The last k block: these rows are final and still in L1 / L2.
        if (direct && kb + kc >= k_) epilogue(c_rows, ldc, rows, ncols, i0);
      }
    }
    if (direct) continue;
    // Keep the columns with ow < out_w, row by row of the output grid.
    for (long m = m0; m < m1; ++m) {
      const float* __restrict from = cbuf + (m - m0) * nc_;
      float* out = c.dst + n * c.image_stride + m * c.row_stride;
      for (long q = q0; q < q0 + ncols;) {
        const long oh = q / c.grid_w, ow = q % c.grid_w;
        const long run = std::min(q0 + ncols - q, c.grid_w - ow);
        const long keep = std::max(0L, std::min(run, c.out_w - ow));
        float* __restrict to = out + oh * c.out_w + ow;
        const float* f = from + (q - q0);
        for (long i = 0; i < keep; ++i)
          to[i] = f[i];
        q += run;
      }
    }
    if (!epilogue) continue;
    // The kept runs of every row, just written.
    for (long q = q0; q < q0 + ncols;) {
      const long oh = q / c.grid_w, ow = q % c.grid_w;
      const long run = std::min(q0 + ncols - q, c.grid_w - ow);
      const long keep = std::max(0L, std::min(run, c.out_w - ow));
      epilogue(c.dst + n * c.image_stride + m0 * c.row_stride + oh * c.out_w + ow, c.row_stride,
               m1 - m0, keep, m0);
      q += run;
    }
  }
}

}  // namespace anydnn::cpu
