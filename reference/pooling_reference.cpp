#include "pooling_reference.hpp"

#include <algorithm>

namespace anydnn::ref {

namespace {

// Spatial lengths and window parameters padded to 3 dimensions (2-D: depth 1).
struct Dims3 {
  long long in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  long long k[3] = {1, 1, 1}, p[3] = {0, 0, 0}, s[3] = {1, 1, 1};
};

Dims3 dims3(const PoolingRefDesc& d, const std::vector<size_t>& in,
            const std::vector<size_t>& out) {
  Dims3 r;
  const size_t sd = d.lens.size(), off = 3 - sd;
  for (size_t i = 0; i < sd; ++i) {
    r.in[i + off] = static_cast<long long>(in[i + 2]);
    r.out[i + off] = static_cast<long long>(out[i + 2]);
    r.k[i + off] = d.lens[i];
    r.p[i + off] = d.pads[i];
    r.s[i + off] = d.strides[i];
  }
  return r;
}

}  // namespace

PoolingRefForward pooling_forward(const PoolingRefDesc& d, const std::vector<size_t>& in_lens,
                                  const std::vector<size_t>& out_lens, const std::vector<double>& x,
                                  double lowest) {
  const Dims3 g = dims3(d, in_lens, out_lens);
  const long long planes = static_cast<long long>(in_lens[0] * in_lens[1]);
  const long long in_plane = g.in[0] * g.in[1] * g.in[2];
  const long long out_plane = g.out[0] * g.out[1] * g.out[2];
  PoolingRefForward r;
  r.y.resize(planes * out_plane);
  r.index.assign(planes * out_plane, 0);
  r.source.assign(planes * out_plane, -1);
  for (long long pl = 0; pl < planes; ++pl)
    for (long long od = 0; od < g.out[0]; ++od)
      for (long long oh = 0; oh < g.out[1]; ++oh)
        for (long long ow = 0; ow < g.out[2]; ++ow) {
          const long long o = pl * out_plane + (od * g.out[1] + oh) * g.out[2] + ow;
          const long long d0 = od * g.s[0] - g.p[0], h0 = oh * g.s[1] - g.p[1],
                          w0 = ow * g.s[2] - g.p[2];
          double acc = d.mode == miopenPoolingMax ? lowest : 0.0;
          long long count = 0;
          for (long long dd = std::max(d0, 0LL); dd < std::min(d0 + g.k[0], g.in[0]); ++dd)
            for (long long hh = std::max(h0, 0LL); hh < std::min(h0 + g.k[1], g.in[1]); ++hh)
              for (long long ww = std::max(w0, 0LL); ww < std::min(w0 + g.k[2], g.in[2]); ++ww) {
                const long long src = pl * in_plane + (dd * g.in[1] + hh) * g.in[2] + ww;
                ++count;
                if (d.mode != miopenPoolingMax) {
                  acc += x[src];
                } else if (x[src] > acc) {
                  acc = x[src];
                  r.source[o] = src;
                  r.index[o] = d.index_mode == miopenPoolingWorkspaceIndexImage
                                   ? static_cast<uint64_t>((dd * g.in[1] + hh) * g.in[2] + ww)
                                   : static_cast<uint64_t>(
                                         ((dd - d0) * g.k[1] + (hh - h0)) * g.k[2] + (ww - w0));
                }
              }
          if (d.mode == miopenPoolingAverage)
            acc /= static_cast<double>(count == 0 ? 1 : count);
          else if (d.mode == miopenPoolingAverageInclusive)
            acc /= static_cast<double>(g.k[0] * g.k[1] * g.k[2]);
          r.y[o] = acc;
        }
  return r;
}

std::vector<double> pooling_backward(const PoolingRefDesc& d, const std::vector<size_t>& in_lens,
                                     const std::vector<size_t>& out_lens,
                                     const std::vector<double>& dy, const PoolingRefForward& fwd) {
  const Dims3 g = dims3(d, in_lens, out_lens);
  const long long planes = static_cast<long long>(in_lens[0] * in_lens[1]);
  const long long in_plane = g.in[0] * g.in[1] * g.in[2];
  const long long out_plane = g.out[0] * g.out[1] * g.out[2];
  std::vector<double> dx(planes * in_plane, 0.0);
  for (long long pl = 0; pl < planes; ++pl)
    for (long long od = 0; od < g.out[0]; ++od)
      for (long long oh = 0; oh < g.out[1]; ++oh)
        for (long long ow = 0; ow < g.out[2]; ++ow) {
          const long long o = pl * out_plane + (od * g.out[1] + oh) * g.out[2] + ow;
          if (d.mode == miopenPoolingMax) {
            if (fwd.source[o] >= 0) dx[fwd.source[o]] += dy[o];
            continue;
          }
          const long long d0 = od * g.s[0] - g.p[0], h0 = oh * g.s[1] - g.p[1],
                          w0 = ow * g.s[2] - g.p[2];
          const long long dl = std::max(d0, 0LL), dh = std::min(d0 + g.k[0], g.in[0]);
          const long long hl = std::max(h0, 0LL), hh = std::min(h0 + g.k[1], g.in[1]);
          const long long wl = std::max(w0, 0LL), wh = std::min(w0 + g.k[2], g.in[2]);
          long long size =
              d.mode == miopenPoolingAverageInclusive
                  ? g.k[0] * g.k[1] * g.k[2]
                  : std::max(dh - dl, 0LL) * std::max(hh - hl, 0LL) * std::max(wh - wl, 0LL);
          if (size == 0) size = 1;
          for (long long a = dl; a < dh; ++a)
            for (long long b = hl; b < hh; ++b)
              for (long long c = wl; c < wh; ++c)
                dx[pl * in_plane + (a * g.in[1] + b) * g.in[2] + c] += dy[o] / size;
        }
  return dx;
}

}  // namespace anydnn::ref
