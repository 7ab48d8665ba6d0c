#include "backend/cpu/kernels/winograd_f4x3.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace anydnn::cpu {

namespace {

constexpr long kThreadFloats = 512 * 1024;  // V and M of one block: within a 2 MiB L2
constexpr int kMaxKc = 256;

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}

}  // namespace

const WinogradTransforms& winograd_transforms(CpuIsa isa) {
#if defined(ANYDNN_HAVE_X86_KERNELS)
  if (isa == CpuIsa::Avx512) return winograd_transforms_avx512();
  if (isa == CpuIsa::Avx2) return winograd_transforms_avx2();
#endif
  return winograd_transforms_generic();
}

void winograd_f4x3_weights(const WinogradTransforms& tr, const float* w, long rows, long cols,
                           bool rotate, long r0, long r1, float* u, long ldu) {
  const long plane = rows * ldu;
  for (long r = r0; r < r1; ++r)
    for (long c = 0; c < cols; c += tr.lanes) {
      const int count = static_cast<int>(std::min<long>(tr.lanes, cols - c));
      tr.weights(w + (r * cols + c) * 9, 9, count, rotate, u + r * ldu + c, plane);
    }
}

WinogradF4x3Plan::WinogradF4x3Plan(CpuIsa isa, long batch, long in_channels, long out_channels,
                                   long in_h, long in_w, long out_h, long out_w, int pad_h,
                                   int pad_w, long in_image, long out_image, int threads,
                                   bool transposed_u)
    : tr_(&winograd_transforms(isa)),
      in_c_(in_channels),
      out_c_(out_channels),
      in_h_(in_h),
      in_w_(in_w),
      out_h_(out_h),
      out_w_(out_w),
      transposed_u_(transposed_u),
      ldu_(padded_lda(transposed_u ? out_channels : in_channels)),
      out_image_(out_image) {
  const long th = ceil_div(out_h, 4), tw = ceil_div(out_w, 4);
  tiles_ = batch * th * tw;
  threads = std::max(1, threads);
  // Tile shape and thread grid: least padded work over the K rows and the tile columns.
  const GemmTiles& tiles = gemm_tiles(isa);
  double best = std::numeric_limits<double>::max();
  for (int s = 0; s < tiles.count; ++s) {
    const GemmTileShape& shape = tiles.shapes[s];
    if (shape.nr % tr_->lanes != 0) continue;
    for (int tm = 1; tm <= threads; ++tm) {
      if (threads % tm != 0) continue;
      const int tn = threads / tm;
      const double mt = static_cast<double>(ceil_div(ceil_div(out_c_, shape.mr), tm) * shape.mr);
      const double nt = static_cast<double>(ceil_div(ceil_div(tiles_, shape.nr), tn) * shape.nr);
      // Splitting K makes every thread transform the whole input block: charge for it.
      const double cost = mt * nt * static_cast<double>(in_c_) / shape.speed +
                          8.0 * nt * static_cast<double>(in_c_) * tm;
      if (cost < best) {
        best = cost;
        tile_ = shape;
        tm_ = tm;
        tn_ = tn;
      }
    }
  }
  const long k_share = std::min(out_c_, ceil_div(ceil_div(out_c_, tile_.mr), tm_) * tile_.mr);
  const long per_tile = 36 * (in_c_ + k_share);
  const long thread_tiles = ceil_div(tiles_, tn_);
  long panels = std::max(1L, kThreadFloats / per_tile / tile_.nr);
  panels = std::min(panels, ceil_div(thread_tiles, tile_.nr));
  block_ = panels * tile_.nr;
  kc_ = static_cast<int>(ceil_div(in_c_, ceil_div(std::max(1L, in_c_), kMaxKc)));
  thread_floats_ = static_cast<size_t>((per_tile * block_ + 15) / 16 * 16);

  // Lane groups over all tiles, vector by vector.
  const int lanes = tr_->lanes;
  auto groups = std::make_shared<std::vector<WinogradLaneGroup>>(ceil_div(tiles_, lanes));
  for (long gi = 0; gi < static_cast<long>(groups->size()); ++gi) {
    WinogradLaneGroup& g = (*groups)[gi];
    std::memset(&g, 0, sizeof(g));
    for (int l = 0; l < lanes; ++l) {
      const long t = gi * lanes + l;
      if (t >= tiles_) break;
      const long n = t / (th * tw), r = t / tw % th, c = t % tw;
      const long ih0 = 4 * r - pad_h, iw0 = 4 * c - pad_w;
      g.in_off[l] = static_cast<int32_t>(n * in_image + ih0 * in_w + iw0);
      g.out_off[l] = static_cast<int32_t>(n * out_image + 4 * r * out_w + 4 * c);
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
          if (ih0 + i >= 0 && ih0 + i < in_h && iw0 + j >= 0 && iw0 + j < in_w)
            g.in_mask[i * 6 + j] |= static_cast<uint16_t>(1u << l);
      for (int u = 0; u < 4; ++u)
        for (int v = 0; v < 4; ++v)
          if (4 * r + u < out_h && 4 * c + v < out_w)
            g.out_mask[u * 4 + v] |= static_cast<uint16_t>(1u << l);
    }
  }
  groups_ = std::move(groups);
}

void WinogradF4x3Plan::run(int t, const float* x, const float* u, float* y, float* scratch,
                           const RowEpilogue& epilogue) const {
  const int mr = tile_.mr, nr = tile_.nr, lanes = tr_->lanes;
  const int tmi = t / tn_, tni = t % tn_;
  const long m_tiles = ceil_div(out_c_, mr);
  const long k0 = m_tiles * tmi / tm_ * mr, k1 = std::min(out_c_, m_tiles * (tmi + 1) / tm_ * mr);
  const long blocks = ceil_div(tiles_, block_);
  const long b0 = blocks * tni / tn_, b1 = blocks * (tni + 1) / tn_;
  if (k0 >= k1) return;
  const long k_share = std::min(out_c_, ceil_div(m_tiles, tm_) * mr);
  const long panels = block_ / nr;
  const long v_xi = panels * in_c_ * nr;  // V[xi][panel][c][lane]
  const long m_xi = k_share * block_;     // M[xi][k][tile]
  float* v = scratch;
  float* m = scratch + 36 * v_xi;
  const long in_plane = in_h_ * in_w_, out_plane = out_h_ * out_w_;
  const auto& groups = *groups_;

  for (long b = b0; b < b1; ++b) {
    const long t0 = b * block_;
    const long count = std::min(block_, tiles_ - t0);
    const long used_panels = ceil_div(count, nr);
    const long g0 = t0 / lanes, g1 = ceil_div(t0 + count, lanes);
    for (long gi = g0; gi < g1; ++gi) {
      const long rel = gi * lanes - t0;
      tr_->input(x, groups[gi], in_plane, in_w_, in_c_, v + rel / nr * in_c_ * nr + rel % nr, v_xi,
                 nr);
    }
    // Lanes past the last group of a partial panel: zero, so the GEMM reads defined values.
    const long filled = (g1 - g0) * lanes;
    if (filled < used_panels * nr) {
      const long p = filled / nr, lane = filled % nr;
      for (int xi = 0; xi < 36; ++xi)
        for (long c = 0; c < in_c_; ++c)
          std::memset(v + xi * v_xi + (p * in_c_ + c) * nr + lane, 0,
                      static_cast<size_t>(nr - lane) * sizeof(float));
    }
    for (int xi = 0; xi < 36; ++xi) {
      const float* a = u + static_cast<long>(xi) * (transposed_u_ ? in_c_ : out_c_) * ldu_;
      const float* bx = v + xi * v_xi;
      float* mx = m + xi * m_xi;
      for (long i0 = k0; i0 < k1; i0 += mr) {
        const int rows = static_cast<int>(std::min<long>(mr, k1 - i0));
        for (long c0 = 0; c0 < in_c_; c0 += kc_) {
          const int kc = static_cast<int>(std::min<long>(kc_, in_c_ - c0));
          for (long p = 0; p < used_panels; ++p) {
            const float* b = bx + (p * in_c_ + c0) * nr;
            float* c = mx + (i0 - k0) * block_ + p * nr;
            if (transposed_u_)  // A(i, k) = U[k][i]
              tile_.packed_a_fn(kc, a + c0 * ldu_ + i0, ldu_, b, c, block_, rows, nr, c0 > 0);
            else
              tile_.fn(kc, a + i0 * ldu_ + c0, ldu_, b, c, block_, rows, nr, c0 > 0);
          }
        }
      }
    }
    for (long gi = g0; gi < g1; ++gi)
      tr_->output(m + (gi * lanes - t0), m_xi, block_, k1 - k0, groups[gi], y + k0 * out_plane,
                  out_plane, out_w_);
    if (epilogue) apply_epilogue(epilogue, t0, count, k0, k1, y);
  }
}

void WinogradF4x3Plan::apply_epilogue(const RowEpilogue& epilogue, long t0, long count, long k0,
                                      long k1, float* y) const {
  // The block's tiles as pieces of the output planes: partial tile rows (up to 4 rows of some
  // tile columns) and runs of whole tile rows (contiguous in a plane).
  struct Piece {
    long off, ld, rows, cols;
  };
  Piece pieces[64];
  int count_pieces = 0;
  const long th = ceil_div(out_h_, 4), tw = ceil_div(out_w_, 4), per_image = th * tw;
  const long out_plane = out_h_ * out_w_;
  const auto flush = [&] {
    for (long k = k0; k < k1; ++k)
      for (int i = 0; i < count_pieces; ++i) {
        const Piece& q = pieces[i];
        epilogue(y + k * out_plane + q.off, q.ld, q.rows, q.cols, k, 0);
      }
    count_pieces = 0;
  };
  for (long t = t0, end = t0 + count; t < end;) {
    const long n = t / per_image, r = t % per_image / tw, c = t % tw;
    if (c != 0 || end - t < tw) {
      const long c1 = std::min(tw, c + (end - t));
      pieces[count_pieces++] = {n * out_image_ + 4 * r * out_w_ + 4 * c, out_w_,
                                std::min(4L, out_h_ - 4 * r), std::min(4 * c1, out_w_) - 4 * c};
      t += c1 - c;
    } else {
      const long rows = std::min((end - t) / tw, th - r);
      pieces[count_pieces++] = {n * out_image_ + 4 * r * out_w_, 0, 1,
                                (std::min(4 * (r + rows), out_h_) - 4 * r) * out_w_};
      t += rows * tw;
    }
    if (count_pieces == 64) flush();
  }
  flush();
}

}  // namespace anydnn::cpu
