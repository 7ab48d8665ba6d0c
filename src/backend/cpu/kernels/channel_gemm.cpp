#include "backend/cpu/kernels/channel_gemm.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "backend/cpu/kernels/transpose.hpp"

namespace anydnn::cpu {

namespace {

constexpr int kMaxKc = 256;                // B^T micro-panel (kc x mr) stays in L1
constexpr long kBlockFloats = 128 * 1024;  // B^T block and C^T block per thread, each in L2
constexpr double kPackCost = 16.0;         // packing one B element ~ 16 multiply-adds

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}
long round_up(long a, long b) {
  return ceil_div(a, b) * b;
}

}  // namespace

ChannelGemmPlan::ChannelGemmPlan(CpuIsa isa, long m, long k, long n, int threads)
    : isa_(isa), m_(m), k_(k), n_(n) {
  const GemmTiles& tiles = gemm_tiles(isa);
  threads = std::max(1, threads);
  double best = std::numeric_limits<double>::max();
  for (int s = 0; s < tiles.count; ++s) {
    const GemmTileShape& shape = tiles.shapes[s];
    for (int tm = 1; tm <= threads; ++tm) {
      if (threads % tm != 0) continue;
      const int tn = threads / tm;
      // Pixels are the tile's rows (mr), channels its vector columns (nr).
      const double pix = static_cast<double>(ceil_div(ceil_div(n, shape.mr), tn) * shape.mr);
      const double ch = static_cast<double>(ceil_div(ceil_div(m, shape.nr), tm) * shape.nr);
      const double cost = pix * ch * static_cast<double>(k) / shape.speed +
                          kPackCost * pix * static_cast<double>(k);
      if (cost < best) {
        best = cost;
        tile_ = shape;
        tm_ = tm;
        tn_ = tn;
      }
    }
  }
  m_pad_ = round_up(std::max(1L, m), tile_.nr);
  m_share_ = ceil_div(m_pad_ / tile_.nr, tm_) * tile_.nr;
  kc_ = static_cast<int>(ceil_div(std::max(k, 1L), ceil_div(std::max(k, 1L), kMaxKc)));
  const long pix_share = round_up(std::max(1L, ceil_div(n, tn_)), tile_.mr);
  const long fit = kBlockFloats / std::max<long>(kc_, m_share_) / tile_.mr * tile_.mr;
  nc_ = std::min(pix_share, std::max<long>(tile_.mr, fit));
  thread_floats_ = static_cast<size_t>(round_up(static_cast<long>(kc_) * nc_, 16) +
                                       round_up(nc_ * m_share_, 16));
}

size_t ChannelGemmPlan::weight_floats() const {
  return static_cast<size_t>(m_pad_) * static_cast<size_t>(k_);
}

void ChannelGemmPlan::pack_weights_from_rows(const float* w, long ldw, float* panels, int t) const {
  const int nr = tile_.nr;
  const long count = m_pad_ / nr;
  for (long p = count * t / threads(); p < count * (t + 1) / threads(); ++p) {
    float* panel = panels + p * k_ * nr;
    const long valid = std::min<long>(nr, m_ - p * nr);
    transpose(isa_, w + p * nr * ldw, ldw, panel, nr, valid, k_);
    if (valid < nr)
      for (long kk = 0; kk < k_; ++kk)
        std::fill(panel + kk * nr + valid, panel + (kk + 1) * nr, 0.0f);
  }
}

void ChannelGemmPlan::pack_weights_from_columns(const float* w, const long* kk_off, long c_stride,
                                                float* panels, int t) const {
  const int nr = tile_.nr;
  const long count = m_pad_ / nr;
  for (long p = count * t / threads(); p < count * (t + 1) / threads(); ++p) {
    float* panel = panels + p * k_ * nr;
    const long valid = std::min<long>(nr, m_ - p * nr);
    for (long kk = 0; kk < k_; ++kk) {
      float* __restrict d = panel + kk * nr;
      const float* src = w + kk_off[kk] + p * nr * c_stride;
      for (long j = 0; j < valid; ++j)
        d[j] = src[j * c_stride];
      std::fill(d + valid, d + nr, 0.0f);
    }
  }
}

void ChannelGemmPlan::run(int t, const float* panels, const ImplicitB& b, const StridedC& c,
                          float* scratch, const RowEpilogue& epilogue) const {
  const int mr = tile_.mr, nr = tile_.nr;
  const int tmi = t / tn_, tni = t % tn_;
  const long ch0 = std::min(m_pad_, tmi * m_share_);
  const long ch1 = std::min(m_, ch0 + m_share_);
  const long pix_tiles = ceil_div(n_, mr);
  const long j_begin = pix_tiles * tni / tn_ * mr;
  const long j_end = std::min(n_, pix_tiles * (tni + 1) / tn_ * mr);
  if (ch0 >= ch1 || j_begin >= j_end || k_ == 0) return;
  float* bt = scratch;  // B^T micro-panels of this block
  float* ct = scratch + round_up(static_cast<long>(kc_) * nc_, 16);  // C^T [pixel][channel]
  const long ldc = m_share_;
  const long gs = b.grid_size();
  const bool dense = c.steps == std::array<int, 3>{1, 1, 1} &&
                     c.offsets == std::array<int, 3>{0, 0, 0} && c.dims == b.grid;
  ImplicitPacker packer(b);
  std::vector<long> offsets;

  for (long jb = j_begin, ncols = 0; jb < j_end; jb += ncols) {
    ncols = std::min(nc_, j_end - jb);
    const long micro = ceil_div(ncols, mr);
    for (long kb = 0; kb < k_; kb += kc_) {
      const int kc = static_cast<int>(std::min<long>(kc_, k_ - kb));
      packer.pack(kb, kc, jb, ncols, mr, bt);
      for (long q = 0; q < micro; ++q) {
        const float* ap = bt + q * kc * mr;
        const int rows = static_cast<int>(std::min<long>(mr, ncols - q * mr));
        for (long p0 = ch0; p0 < ch1; p0 += nr) {
          const float* wp = panels + (p0 / nr) * k_ * nr + kb * nr;
          tile_.packed_a_fn(kc, ap, mr, wp, ct + q * mr * ldc + (p0 - ch0), ldc, rows,
                            static_cast<int>(std::min<long>(nr, ch1 - p0)), kb > 0);
        }
      }
    }
    // C^T block -> C: per image run of pixels, a transpose when C is dense, else a scatter.
    for (long j = jb; j < jb + ncols;) {
      const long n = j / gs, r = j % gs;
      const long len = std::min(jb + ncols - j, gs - r);
      const float* from = ct + (j - jb) * ldc;
      if (dense) {
        float* to = c.dst + n * c.image_stride + ch0 * c.row_stride + r;
        transpose(isa_, from, ldc, to, c.row_stride, len, ch1 - ch0);
        epilogue(to, c.row_stride, ch1 - ch0, len, ch0);
      } else {
        offsets.resize(static_cast<size_t>(len));
        for (long i = 0; i < len; ++i) {
          const long rr = r + i;
          const long ow = rr % b.grid[2], oh = rr / b.grid[2] % b.grid[1],
                     od = rr / (b.grid[2] * b.grid[1]);
          offsets[i] =
              n * c.image_stride +
              ((od * c.steps[0] + c.offsets[0]) * c.dims[1] + oh * c.steps[1] + c.offsets[1]) *
                  c.dims[2] +
              ow * c.steps[2] + c.offsets[2];
        }
        for (long ch = ch0; ch < ch1; ++ch) {
          float* dst = c.dst + ch * c.row_stride;
          for (long i = 0; i < len; ++i)
            dst[offsets[i]] = from[i * ldc + (ch - ch0)];
        }
      }
      j += len;
    }
  }
}

}  // namespace anydnn::cpu
