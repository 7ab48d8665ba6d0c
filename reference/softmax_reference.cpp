#include "softmax_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace anydnn::ref {

namespace {

// Calls f(offsets of one group) for every group.
template <class F>
void for_each_group(const SoftmaxDesc& d, const std::array<size_t, 4>& l, F&& f) {
  const size_t hw = l[2] * l[3];
  std::vector<size_t> idx;
  for (size_t n = 0; n < l[0]; ++n) {
    if (d.mode == MIOPEN_SOFTMAX_MODE_INSTANCE) {
      idx.resize(l[1] * hw);
      for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = n * l[1] * hw + i;
      f(idx);
      continue;
    }
    idx.resize(l[1]);
    for (size_t p = 0; p < hw; ++p) {
      for (size_t c = 0; c < l[1]; ++c)
        idx[c] = (n * l[1] + c) * hw + p;
      f(idx);
    }
  }
}

}  // namespace

std::vector<double> softmax_forward(const SoftmaxDesc& d, const std::array<size_t, 4>& lens,
                                    const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for_each_group(d, lens, [&](const std::vector<size_t>& g) {
    double m = -std::numeric_limits<double>::infinity();
    for (size_t i : g)
      m = std::max(m, x[i]);
    if (d.algorithm == MIOPEN_SOFTMAX_FAST) m = 0.0;
    double s = 0.0;
    for (size_t i : g)
      s += std::exp(x[i] - m);
    for (size_t i : g)
      y[i] = d.algorithm == MIOPEN_SOFTMAX_LOG ? x[i] - m - std::log(s) : std::exp(x[i] - m) / s;
  });
  return y;
}

std::vector<double> softmax_backward(const SoftmaxDesc& d, const std::array<size_t, 4>& lens,
                                     const std::vector<double>& y, const std::vector<double>& dy) {
  std::vector<double> dx(y.size());
  const bool log = d.algorithm == MIOPEN_SOFTMAX_LOG;
  for_each_group(d, lens, [&](const std::vector<size_t>& g) {
    double dot = 0.0;
    for (size_t i : g)
      dot += log ? dy[i] : dy[i] * y[i];
    for (size_t i : g)
      dx[i] = log ? dy[i] - dot * std::exp(y[i]) : (dy[i] - dot) * y[i];
  });
  return dx;
}

std::vector<double> softmax_blend(const std::vector<double>& value, double alpha, double beta,
                                  const std::vector<double>& prior) {
  std::vector<double> out(value.size());
  for (size_t i = 0; i < value.size(); ++i)
    out[i] = alpha * value[i] + (beta != 0.0 ? beta * prior[i] : 0.0);
  return out;
}

double softmax_rms_error(const std::vector<double>& want, const std::vector<double>& got) {
  if (want.size() != got.size()) return std::numeric_limits<double>::infinity();
  double sq = 0.0, mag = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
    sq += (want[i] - got[i]) * (want[i] - got[i]);
    mag = std::max({mag, std::abs(want[i]), std::abs(got[i])});
  }
  if (want.empty()) return 0.0;
  const double rms = std::sqrt(sq) / std::sqrt(static_cast<double>(want.size()));
  return mag == 0.0 ? rms : rms / mag;
}

double softmax_tolerance(miopenDataType_t type) {
  return type == miopenFloat ? 1e-3 : 5e-2;
}

}  // namespace anydnn::ref
