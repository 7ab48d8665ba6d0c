#include "ctc_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace anydnn::ref {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double lse(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

}  // namespace

CtcResult ctc_loss(const CtcDesc& d, const std::array<size_t, 3>& lens,
                   const std::vector<double>& probs, const std::vector<int>& labels,
                   const std::vector<int>& label_lengths, const std::vector<int>& input_lengths) {
  const size_t T = lens[0], N = lens[1], C = lens[2];
  const int blank = std::clamp(d.blank, 0, static_cast<int>(C) - 1);
  // Log-probabilities lp[(t * N + n) * C + c].
  std::vector<double> lp = probs;
  if (d.apply_softmax)
    for (size_t r = 0; r < T * N; ++r) {
      const double* x = &probs[r * C];
      double m = x[0];
      for (size_t c = 1; c < C; ++c)
        m = std::max(m, x[c]);
      double s = 0.0;
      for (size_t c = 0; c < C; ++c)
        s += std::exp(x[c] - m);
      for (size_t c = 0; c < C; ++c)
        lp[r * C + c] = x[c] - m - std::log(s);
    }
  CtcResult out;
  out.losses.assign(N, 0.0);
  out.gradients.assign(T * N * C, 0.0);
  size_t offset = 0;
  for (size_t n = 0; n < N; ++n) {
    const int L = label_lengths[n], Tn = input_lengths[n], S = 2 * L + 1;
    std::vector<int> ext(S, blank);
    for (int j = 0; j < L; ++j)
      ext[2 * j + 1] = labels[offset + j];
    offset += L;
    auto p = [&](int t, int c) { return lp[(t * N + n) * C + c]; };
    auto skip = [&](int s, int from) {  // may ext[s] follow ext[from] directly (two states on)?
      return ext[s] != blank && ext[s] != ext[from];
    };
    std::vector<double> alpha(static_cast<size_t>(Tn) * S, kNegInf), beta = alpha;
    auto A = [&](int t, int s) -> double& { return alpha[static_cast<size_t>(t) * S + s]; };
    auto B = [&](int t, int s) -> double& { return beta[static_cast<size_t>(t) * S + s]; };
    A(0, 0) = p(0, ext[0]);
    if (S > 1) A(0, 1) = p(0, ext[1]);
    for (int t = 1; t < Tn; ++t)
      for (int s = 0; s < S; ++s) {
        double a = A(t - 1, s);
        if (s >= 1) a = lse(a, A(t - 1, s - 1));
        if (s >= 2 && skip(s, s - 2)) a = lse(a, A(t - 1, s - 2));
        A(t, s) = a == kNegInf ? kNegInf : a + p(t, ext[s]);
      }
    B(Tn - 1, S - 1) = p(Tn - 1, ext[S - 1]);
    if (S > 1) B(Tn - 1, S - 2) = p(Tn - 1, ext[S - 2]);
    for (int t = Tn - 2; t >= 0; --t)
      for (int s = 0; s < S; ++s) {
        double b = B(t + 1, s);
        if (s + 1 < S) b = lse(b, B(t + 1, s + 1));
        if (s + 2 < S && skip(s + 2, s)) b = lse(b, B(t + 1, s + 2));
        B(t, s) = b == kNegInf ? kNegInf : b + p(t, ext[s]);
      }
    const double log_p = S == 1 ? A(Tn - 1, 0) : lse(A(Tn - 1, S - 1), A(Tn - 1, S - 2));
    out.losses[n] = -log_p;
    for (int t = 0; t < Tn; ++t) {
      std::vector<double> acc(C, kNegInf);
      for (int s = 0; s < S; ++s)
        if (A(t, s) != kNegInf && B(t, s) != kNegInf)
          acc[ext[s]] = lse(acc[ext[s]], A(t, s) + B(t, s));
      for (size_t c = 0; c < C; ++c) {
        const double x = p(t, static_cast<int>(c));
        double& g = out.gradients[(t * N + n) * C + c];
        if (d.apply_softmax)
          g = std::exp(x) - (acc[c] == kNegInf ? 0.0 : std::exp(acc[c] - x - log_p));
        else
          g = acc[c] == kNegInf ? 0.0 : -std::exp(acc[c] - 2.0 * x - log_p);
      }
    }
  }
  return out;
}

}  // namespace anydnn::ref
