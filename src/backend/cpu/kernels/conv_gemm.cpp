#include "backend/cpu/kernels/conv_gemm.hpp"

#include "backend/cpu/kernels/implicit_pack.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace anydnn::cpu {

namespace {

constexpr long kPanelFloats = 256 * 1024;  // packed B block per thread: 1 MiB, half an L2
constexpr int kMaxKc = 256;                // A tile rows (mr x kc) stay in L1
constexpr double kPackCost = 16.0;         // packing one B element ~ 16 multiply-adds

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}
long round_up(long a, long b) {
  return ceil_div(a, b) * b;
}

// Offset in C of column j (row 0).
long c_offset(const ImplicitB& b, const StridedC& c, long j) {
  const long gs = b.grid_size();
  const long n = j / gs, r = j % gs;
  const long ow = r % b.grid[2], oh = (r / b.grid[2]) % b.grid[1], od = r / (b.grid[2] * b.grid[1]);
  const long zd = od * c.steps[0] + c.offsets[0], zh = oh * c.steps[1] + c.offsets[1],
             zw = ow * c.steps[2] + c.offsets[2];
  return n * c.image_stride + (zd * c.dims[1] + zh) * c.dims[2] + zw;
}

}  // namespace

ConvGemmPlan::ConvGemmPlan(CpuIsa isa, long m, long k, long n, int threads) : m_(m), k_(k), n_(n) {
  const GemmTiles& tiles = gemm_tiles(isa);
  threads = std::max(1, threads);
  double best = std::numeric_limits<double>::max();
  for (int s = 0; s < tiles.count; ++s) {
    const GemmTileShape& shape = tiles.shapes[s];
    const double efficiency = shape.speed;
    for (int tm = 1; tm <= threads; ++tm) {
      if (threads % tm != 0) continue;
      const int tn = threads / tm;
      const long mt = ceil_div(ceil_div(m, shape.mr), tm) * shape.mr;
      const long nt = ceil_div(ceil_div(n, shape.nr), tn) * shape.nr;
      const double cost =
          static_cast<double>(mt) * nt * k / efficiency + kPackCost * static_cast<double>(nt) * k;
      if (cost < best) {
        best = cost;
        tile_ = shape;
        tm_ = tm;
        tn_ = tn;
      }
    }
  }
  const int blocks = static_cast<int>(ceil_div(std::max(k, 1L), kMaxKc));
  kc_ = static_cast<int>(std::max(1L, ceil_div(std::max(k, 1L), blocks)));
  // Column block: its packed panels (kc x nc) and its output buffer (rows x nc) both within
  // kPanelFloats, but at least a few tiles wide.
  const long share = round_up(std::max(1L, ceil_div(n, tn_)), tile_.nr);
  const long rows = std::min(m_, ceil_div(ceil_div(m_, tile_.mr), tm_) * tile_.mr);
  const long fit = kPanelFloats / std::max<long>(kc_, rows) / tile_.nr * tile_.nr;
  nc_ = std::min(share, std::max<long>(4 * tile_.nr, fit));
  const size_t panel = static_cast<size_t>(kc_) * static_cast<size_t>(nc_);
  const size_t cbuf = static_cast<size_t>(rows) * static_cast<size_t>(nc_);
  thread_floats_ = round_up(static_cast<long>(panel + cbuf), 16);
}

void ConvGemmPlan::run(int t, const float* a, long lda, const ImplicitB& b, const StridedC& c,
                       float* scratch, bool accumulate, const RowEpilogue& epilogue) const {
  const int mr = tile_.mr, nr = tile_.nr;
  const int tmi = t / tn_, tni = t % tn_;
  const long m_tiles = ceil_div(m_, mr), n_tiles = ceil_div(n_, nr);
  const long m0 = m_tiles * tmi / tm_ * mr, m1 = std::min(m_, m_tiles * (tmi + 1) / tm_ * mr);
  const long j_begin = n_tiles * tni / tn_ * nr;
  const long j_end = std::min(n_, n_tiles * (tni + 1) / tn_ * nr);
  if (m0 >= m1 || j_begin >= j_end || k_ == 0) return;
  float* panels = scratch;
  float* cbuf = scratch + static_cast<long>(kc_) * nc_;
  const long gs = b.grid_size();
  ImplicitPacker packer(b);
  const bool dense = c.steps == std::array<int, 3>{1, 1, 1} &&
                     c.offsets == std::array<int, 3>{0, 0, 0} && c.dims == b.grid;
  // With images of several blocks, blocks end at image boundaries so that they can be stored
  // straight into C.
  const bool split_at_images = dense && gs >= 4 * nr;
  std::vector<long> col_off(static_cast<size_t>(nc_));

  for (long jb = j_begin, ncols = 0; jb < j_end; jb += ncols) {
    ncols = std::min(nc_, j_end - jb);
    if (split_at_images) ncols = std::min(ncols, (jb / gs + 1) * gs - jb);
    const long npanels = ceil_div(ncols, nr);
    // Where this block's columns go: straight into C when they are consecutive pixels of one
    // image (row stride = C's), else into the block buffer (row stride nc) and scattered after.
    const bool direct = dense && jb / gs == (jb + ncols - 1) / gs;
    float* block_dst = direct ? c.dst + (jb / gs) * c.image_stride + jb % gs : cbuf;
    const long block_ld = direct ? c.row_stride : nc_;
    for (long kb = 0; kb < k_; kb += kc_) {
      const int kc = static_cast<int>(std::min<long>(kc_, k_ - kb));
      packer.pack(kb, kc, jb, ncols, nr, panels);
      const bool acc = (direct && accumulate) || kb > 0;
      for (long i0 = m0; i0 < m1; i0 += mr) {
        const int rows = static_cast<int>(std::min<long>(mr, m1 - i0));
        const float* a_tile = a + i0 * lda + kb;
        float* dst_rows = block_dst + (direct ? i0 : i0 - m0) * block_ld;
        for (long p = 0; p < npanels; ++p) {
          const int cols = static_cast<int>(std::min<long>(nr, ncols - p * nr));
          tile_.fn(kc, a_tile, lda, panels + p * static_cast<long>(kc) * nr, dst_rows + p * nr,
                   block_ld, rows, cols, acc);
        }
        // The last k block: these rows of the block are final and still in L1 / L2.
        if (direct && kb + kc >= k_) epilogue(dst_rows, block_ld, rows, ncols, i0);
      }
    }
    if (direct) continue;
    for (long jj = 0; jj < ncols; ++jj)
      col_off[jj] = c_offset(b, c, jb + jj);
    for (long i = m0; i < m1; ++i) {
      float* __restrict row = c.dst + i * c.row_stride;
      const float* __restrict e = cbuf + (i - m0) * nc_;
      if (accumulate) {
        for (long jj = 0; jj < ncols; ++jj)
          row[col_off[jj]] += e[jj];
      } else {
        for (long jj = 0; jj < ncols; ++jj)
          row[col_off[jj]] = e[jj];
      }
    }
    // Scattered into C: the epilogue on each image's run of the block's columns, just written.
    if (epilogue && dense)
      for (long j = jb; j < jb + ncols;) {
        const long n = j / gs, r = j % gs, len = std::min(jb + ncols - j, gs - r);
        epilogue(c.dst + n * c.image_stride + m0 * c.row_stride + r, c.row_stride, m1 - m0, len,
                 m0);
        j += len;
      }
  }
}

}  // namespace anydnn::cpu
