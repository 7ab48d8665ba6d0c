#include "backend/cpu/kernels/conv_gemm.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace anydnn::cpu {

namespace {

constexpr long kPanelFloats = 256 * 1024;  // packed B block per thread: 1 MiB, half an L2
constexpr int kMaxKc = 256;                // A tile rows (mr x kc) stay in L1
constexpr double kPackCost = 16.0;         // packing one B element ~ 16 multiply-adds
constexpr int kPrefetchRows = 4;           // flat B: source rows prefetched ahead

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}
long round_up(long a, long b) {
  return ceil_div(a, b) * b;
}

// A run of consecutive B columns that share one source row (or, for a "flat" B, one image)
// and one panel.
struct Segment {
  long n, od, oh, ow;  // first column's position (flat: ow is the pixel index in the image)
  long len;
  long dst;  // offset of the run in row 0 of the packed block
};

// B is flat when every column reads the same pixel index of its image for every row: 1x1,
// no padding, unit steps, grid == source dims. Then runs can span whole images.
bool is_flat(const ImplicitB& b) {
  if (b.steps != std::array<int, 3>{1, 1, 1} || b.dims != b.grid) return false;
  for (long r = 0; r < b.rows; ++r)
    if (b.taps[r].dd != 0 || b.taps[r].dh != 0 || b.taps[r].dw != 0) return false;
  return true;
}

void build_segments(const ImplicitB& b, bool flat, long j0, long ncols, int kc, int nr,
                    std::vector<Segment>& segs) {
  segs.clear();
  const long gs = b.grid_size();
  const long gw = b.grid[2], gh = b.grid[1];
  long j = j0;
  const long end = j0 + ncols;
  while (j < end) {
    const long n = j / gs, r = j % gs;
    const long rel = j - j0;
    const long panel = rel / nr, lane = rel % nr;
    long len = std::min(end - j, nr - lane);
    Segment s{n, 0, 0, r, 0, panel * kc * nr + lane};
    if (flat) {
      len = std::min(len, gs - r);
    } else {
      s.ow = r % gw;
      s.oh = (r / gw) % gh;
      s.od = r / (gw * gh);
      len = std::min(len, gw - s.ow);
    }
    s.len = len;
    segs.push_back(s);
    j += len;
  }
}

// Packs rows [k0, k0 + kc) and columns [j0, j0 + ncols) of B into panels of nr columns.
void pack_block(const ImplicitB& b, bool flat, const std::vector<Segment>& segs, long k0, int kc,
                long ncols, int nr, float* buf) {
  const long D = b.dims[0], H = b.dims[1], W = b.dims[2];
  const int sd = b.steps[0], sh = b.steps[1], sw = b.steps[2];
  for (int kk = 0; kk < kc; ++kk) {
    const GemmTap& t = b.taps[k0 + kk];
    const float* chan = b.src + t.channel * b.channel_stride;
    if (flat && kk + kPrefetchRows < kc) {
      // Rows of a flat B are far apart (one channel plane): the hardware prefetchers do not
      // follow, so fetch a later row's source run while copying this one.
      const float* ahead = b.src + b.taps[k0 + kk + kPrefetchRows].channel * b.channel_stride;
      for (const Segment& s : segs)
        for (long i = 0; i < s.len; i += 16)
          __builtin_prefetch(ahead + s.n * b.image_stride + s.ow + i);
    }
    for (const Segment& s : segs) {
      float* __restrict d = buf + s.dst + static_cast<long>(kk) * nr;
      const float* img = chan + s.n * b.image_stride;
      if (flat) {
        const float* __restrict src = img + s.ow;
        for (long i = 0; i < s.len; ++i)
          d[i] = src[i];
        continue;
      }
      const long id = s.od * sd + t.dd, ih = s.oh * sh + t.dh;
      if (id < 0 || id >= D || ih < 0 || ih >= H) {
        for (long i = 0; i < s.len; ++i)
          d[i] = 0.0f;
        continue;
      }
      const float* row = img + (id * H + ih) * W;
      const long iw = s.ow * sw + t.dw;
      // Columns [lo, hi) read inside the row; the rest are padding.
      long lo, hi;
      if (sw == 1) {
        lo = std::clamp(-iw, 0L, s.len);
        hi = std::clamp(W - iw, lo, s.len);
      } else {
        lo = std::min(s.len, iw >= 0 ? 0L : ceil_div(-iw, sw));
        hi = std::max(lo, std::min(s.len, iw >= W ? 0L : ceil_div(W - iw, sw)));
      }
      for (long i = 0; i < lo; ++i)
        d[i] = 0.0f;
      const float* __restrict src = row + iw;
      if (sw == 1) {
        for (long i = lo; i < hi; ++i)
          d[i] = src[i];
      } else {
        for (long i = lo; i < hi; ++i)
          d[i] = src[i * sw];
      }
      for (long i = hi; i < s.len; ++i)
        d[i] = 0.0f;
    }
  }
  // Lanes past the last column stay zero so the tiles may read whole panels.
  const long tail = round_up(ncols, nr) - ncols;
  if (tail > 0) {
    float* last = buf + (ncols / nr) * static_cast<long>(kc) * nr + ncols % nr;
    for (int kk = 0; kk < kc; ++kk)
      std::memset(last + static_cast<long>(kk) * nr, 0, static_cast<size_t>(tail) * sizeof(float));
  }
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
                       float* scratch, bool accumulate) const {
  const int mr = tile_.mr, nr = tile_.nr;
  const int tmi = t / tn_, tni = t % tn_;
  const long m_tiles = ceil_div(m_, mr), n_tiles = ceil_div(n_, nr);
  const long m0 = m_tiles * tmi / tm_ * mr, m1 = std::min(m_, m_tiles * (tmi + 1) / tm_ * mr);
  const long j_begin = n_tiles * tni / tn_ * nr;
  const long j_end = std::min(n_, n_tiles * (tni + 1) / tn_ * nr);
  if (m0 >= m1 || j_begin >= j_end || k_ == 0) return;
  float* panels = scratch;
  float* cbuf = scratch + static_cast<long>(kc_) * nc_;
  const bool flat = is_flat(b);
  const long gs = b.grid_size();
  const bool dense = c.steps == std::array<int, 3>{1, 1, 1} &&
                     c.offsets == std::array<int, 3>{0, 0, 0} && c.dims == b.grid;
  // With images of several blocks, blocks end at image boundaries so that they can be stored
  // straight into C.
  const bool split_at_images = dense && gs >= 4 * nr;
  std::vector<Segment> segs;
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
      build_segments(b, flat, jb, ncols, kc, nr, segs);
      pack_block(b, flat, segs, kb, kc, ncols, nr, panels);
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
  }
}

std::vector<GemmTap> forward_taps(long channels, const std::array<size_t, 3>& filter,
                                  const std::array<int, 3>& pads,
                                  const std::array<int, 3>& dilations) {
  std::vector<GemmTap> taps;
  taps.reserve(static_cast<size_t>(channels) * filter[0] * filter[1] * filter[2]);
  for (long ch = 0; ch < channels; ++ch)
    for (size_t z = 0; z < filter[0]; ++z)
      for (size_t y = 0; y < filter[1]; ++y)
        for (size_t x = 0; x < filter[2]; ++x)
          taps.push_back({ch, static_cast<int>(z) * dilations[0] - pads[0],
                          static_cast<int>(y) * dilations[1] - pads[1],
                          static_cast<int>(x) * dilations[2] - pads[2]});
  return taps;
}

}  // namespace anydnn::cpu
