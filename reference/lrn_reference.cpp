#include "lrn_reference.hpp"

#include <algorithm>
#include <cmath>

namespace anydnn::ref {

namespace {

struct Window {
  long long pre_pad, pad;
};

Window window_of(const LrnDesc& d) {
  const long long n = d.n;
  return {(n - 1) / 2, n - 1 - (n - 1) / 2};
}

double area_of(const LrnDesc& d) {
  const double n = d.n;
  return d.mode == miopenLRNCrossChannel ? n : n * n;
}

// sum over the window [i - before, i + after] (clipped) of f(element) around every element, in
// the mode's window (channels, or an N x N square of the map).
template <class F>
std::vector<double> window_sums(const LrnDesc& d, const std::array<size_t, 4>& l, long long before,
                                long long after, F&& f) {
  const long long N = l[0], C = l[1], H = l[2], W = l[3];
  std::vector<double> out(static_cast<size_t>(N * C * H * W));
  auto at = [&](long long n, long long c, long long h, long long w) {
    return static_cast<size_t>(((n * C + c) * H + h) * W + w);
  };
  for (long long n = 0; n < N; ++n)
    for (long long c = 0; c < C; ++c)
      for (long long h = 0; h < H; ++h)
        for (long long w = 0; w < W; ++w) {
          double s = 0.0;
          if (d.mode == miopenLRNCrossChannel) {
            for (long long j = std::max(0LL, c - before); j <= std::min(C - 1, c + after); ++j)
              s += f(at(n, j, h, w));
          } else {
            for (long long i = std::max(0LL, h - before); i <= std::min(H - 1, h + after); ++i)
              for (long long j = std::max(0LL, w - before); j <= std::min(W - 1, w + after); ++j)
                s += f(at(n, c, i, j));
          }
          out[at(n, c, h, w)] = s;
        }
  return out;
}

}  // namespace

std::vector<double> lrn_forward(const LrnDesc& d, const std::array<size_t, 4>& lens,
                                const std::vector<double>& x, std::vector<double>* scale) {
  const Window win = window_of(d);
  const std::vector<double> sq =
      window_sums(d, lens, win.pre_pad, win.pad, [&](size_t i) { return x[i] * x[i]; });
  std::vector<double> y(x.size()), s(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    s[i] = d.k + sq[i] * d.alpha / area_of(d);
    y[i] = x[i] * std::pow(s[i], -d.beta);
  }
  if (scale != nullptr) *scale = std::move(s);
  return y;
}

std::vector<double> lrn_backward(const LrnDesc& d, const std::array<size_t, 4>& lens,
                                 const std::vector<double>& x, const std::vector<double>& y,
                                 const std::vector<double>& dy, const std::vector<double>& scale) {
  const Window win = window_of(d);
  // The transposed window: the outputs whose forward window holds the element.
  const std::vector<double> r =
      window_sums(d, lens, win.pad, win.pre_pad, [&](size_t i) { return dy[i] * y[i] / scale[i]; });
  const double ratio = 2.0 * d.alpha * d.beta / area_of(d);
  std::vector<double> dx(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    dx[i] = dy[i] * std::pow(scale[i], -d.beta) - ratio * x[i] * r[i];
  return dx;
}

double lrn_tolerance(bool forward, miopenDataType_t type) {
  if (type != miopenFloat) return 2e-3;
  return forward ? 1.5e-4 : 6e-5;
}

}  // namespace anydnn::ref
