#include "backend/cpu/kernels/implicit_pack.hpp"

#include <algorithm>
#include <cstring>

namespace anydnn::cpu {

namespace {

constexpr int kPrefetchRows = 4;  // flat B: source rows prefetched ahead

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}
long round_up(long a, long b) {
  return ceil_div(a, b) * b;
}

// B is flat when every column reads the same pixel index of its image for every row: 1x1,
// no padding, unit steps, grid == source dims. Then runs can span whole images.
bool is_flat(const ImplicitB& b) {
  if (b.steps != std::array<int, 3>{1, 1, 1} || b.dims != b.grid) return false;
  for (long r = 0; r < b.rows; ++r)
    if (b.taps[r].dd != 0 || b.taps[r].dh != 0 || b.taps[r].dw != 0) return false;
  return true;
}

}  // namespace

ImplicitPacker::ImplicitPacker(const ImplicitB& b) : b_(b), flat_(is_flat(b)) {}

void ImplicitPacker::build_segments(long j0, long ncols, int kc, int nr) {
  const ImplicitB& b = b_;
  const bool flat = flat_;
  auto& segs = segs_;
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
void ImplicitPacker::emit_run(const GemmTap& t, const Segment& s, float* d, long stride) const {
  const ImplicitB& b = b_;
  const float* img = b.src + t.channel * b.channel_stride + s.n * b.image_stride;
  if (flat_) {
    const float* __restrict src = img + s.ow;
    for (long i = 0; i < s.len; ++i)
      d[i * stride] = src[i];
    return;
  }
  const long D = b.dims[0], H = b.dims[1], W = b.dims[2];
  const int sw = b.steps[2];
  const long id = s.od * b.steps[0] + t.dd, ih = s.oh * b.steps[1] + t.dh;
  if (id < 0 || id >= D || ih < 0 || ih >= H) {
    for (long i = 0; i < s.len; ++i)
      d[i * stride] = 0.0f;
    return;
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
  const float* __restrict src = row + iw;
  if (stride == 1) {  // the common case, kept simple enough to vectorize
    float* __restrict o = d;
    for (long i = 0; i < lo; ++i)
      o[i] = 0.0f;
    if (sw == 1) {
      for (long i = lo; i < hi; ++i)
        o[i] = src[i];
    } else {
      for (long i = lo; i < hi; ++i)
        o[i] = src[i * sw];
    }
    for (long i = hi; i < s.len; ++i)
      o[i] = 0.0f;
    return;
  }
  for (long i = 0; i < lo; ++i)
    d[i * stride] = 0.0f;
  for (long i = lo; i < hi; ++i)
    d[i * stride] = src[i * sw];
  for (long i = hi; i < s.len; ++i)
    d[i * stride] = 0.0f;
}

void ImplicitPacker::pack_transposed(long k0, int kn, long j0, long ncols, int width, float* buf) {
  build_segments(j0, ncols, 1, static_cast<int>(ncols));  // runs within output rows only
  for (int kk = 0; kk < kn; ++kk)
    for (const Segment& s : segs_)
      emit_run(b_.taps[k0 + kk], s, buf + s.dst * width + kk, width);
  for (int kk = kn; kk < width; ++kk)
    for (long j = 0; j < ncols; ++j)
      buf[j * width + kk] = 0.0f;
}

void ImplicitPacker::pack(long k0, int kc, long j0, long ncols, int nr, float* buf) {
  build_segments(j0, ncols, kc, nr);
  const ImplicitB& b = b_;
  const bool flat = flat_;
  const auto& segs = segs_;
  for (int kk = 0; kk < kc; ++kk) {
    const GemmTap& t = b.taps[k0 + kk];
    if (flat && kk + kPrefetchRows < kc) {
      // Rows of a flat B are far apart (one channel plane): the hardware prefetchers do not
      // follow, so fetch a later row's source run while copying this one.
      const float* ahead = b.src + b.taps[k0 + kk + kPrefetchRows].channel * b.channel_stride;
      for (const Segment& s : segs)
        for (long i = 0; i < s.len; i += 16)
          __builtin_prefetch(ahead + s.n * b.image_stride + s.ow + i);
    }
    for (const Segment& s : segs)
      emit_run(t, s, buf + s.dst + static_cast<long>(kk) * nr, 1);
  }
  // Lanes past the last column stay zero so the tiles may read whole panels.
  const long tail = round_up(ncols, nr) - ncols;
  if (tail > 0) {
    float* last = buf + (ncols / nr) * static_cast<long>(kc) * nr + ncols % nr;
    for (int kk = 0; kk < kc; ++kk)
      std::memset(last + static_cast<long>(kk) * nr, 0, static_cast<size_t>(tail) * sizeof(float));
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
