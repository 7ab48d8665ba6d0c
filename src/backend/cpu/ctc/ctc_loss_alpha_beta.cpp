// CtcLossAlphaBeta (CPU): MIOpen's CTCLossGPU on host threads. The log-softmax (when applied)
// goes to the workspace's [T, N, C] float region, then each batch element (one OpenMP task
// each) runs the alpha recursion into its alpha rows, the loss, and the beta recursion from the
// last time step down in its two beta rows, the gradient of each time step following its beta
// row (per class, the log-sum of alpha + beta over the states of that class). The arithmetic is
// ctc/ctc_math.hpp's, shared with the CUDA solver.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ctc/ctc_math.hpp"
#include "ctc/ctc_registry.hpp"
#include "ctc/ctc_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class CtcLossAlphaBeta final : public CtcLossAlphaBetaSpec {
 public:
  void run(const ExecutionContext& ctx, const CtcLossProblem& p,
           const CtcLossBuffers& b) const override {
    float* ws = static_cast<float*>(b.workspace);
    const float* probs = static_cast<const float*>(b.probs);
    const int threads = std::max(1, ctx.config.num_threads);
    const long long rows = static_cast<long long>(p.max_time()) * p.batch();
    if (p.apply_softmax()) {
      float* logp = ws + p.ws_float_logp();
#pragma omp parallel for num_threads(threads) schedule(static) if (rows * p.classes() > (1 << 18))
      for (long long r = 0; r < rows; ++r)
        log_softmax_row(p, probs, r, logp + r * p.classes());
    }
    // Threads only pay off for real work: their start-up costs more than a small problem.
    const long long work = rows * (p.classes() + p.max_s());
#pragma omp parallel for num_threads(threads) schedule(dynamic) if (threads > 1 && work > (1 << 18))
    for (int n = 0; n < p.batch(); ++n)
      batch_element(p, b, n);
  }

 private:
  static void log_softmax_row(const CtcLossProblem& p, const float* probs, long long r,
                              float* out) {
    const CtcStrides& st = p.probs_strides();
    const long long t = r / p.batch(), n = r % p.batch();
    const float* x = probs + t * st.t + n * st.n;
    const int C = p.classes();
    float m = x[0];
    for (int c = 1; c < C; ++c)
      m = std::max(m, x[c * st.c]);
    double s = 0.0;
    for (int c = 0; c < C; ++c)
      s += expf(x[c * st.c] - m);
    const float ls = static_cast<float>(std::log(s));
    for (int c = 0; c < C; ++c)
      out[c] = std::max(x[c * st.c] - m - ls, ctc::kLogZero);
  }

  static void batch_element(const CtcLossProblem& p, const CtcLossBuffers& b, int n) {
    float* ws = static_cast<float*>(b.workspace);
    const int N = p.batch(), C = p.classes(), T = p.input_lengths()[n];
    const int L = p.label_lengths()[n], S = 2 * L + 1, blank = p.blank();
    const int* labels = p.labels().data() + p.label_offsets()[n];
    const bool softmax = p.apply_softmax();
    const CtcStrides& ps = p.probs_strides();
    const CtcStrides& gs = p.grad_strides();
    const float* probs = static_cast<const float*>(b.probs);
    const float* logp = ws + p.ws_float_logp();
    auto lp = [&](int t, int c) {
      return softmax ? logp[(static_cast<long long>(t) * N + n) * C + c]
                     : probs[t * ps.t + n * ps.n + c * ps.c];
    };
    float* alpha = ws + p.ws_float_alpha() + static_cast<size_t>(n) * p.max_time() * p.max_s();
    std::fill(alpha, alpha + S, ctc::kLogZero);
    alpha[0] = lp(0, blank);
    if (S > 1) alpha[1] = lp(0, labels[0]);
    for (int t = 1; t < T; ++t)
      for (int s = 0; s < S; ++s)
        alpha[t * S + s] = ctc::alpha_step(alpha + (t - 1) * S, labels, s, blank,
                                           lp(t, ctc::ext_label(labels, s, blank)));
    const float log_p = ctc::log_likelihood(alpha + (T - 1) * S, S);
    static_cast<float*>(b.losses)[n] = -log_p;

    float* beta[2] = {ws + p.ws_float_beta() + static_cast<size_t>(n) * 2 * p.max_s(), nullptr};
    beta[1] = beta[0] + p.max_s();
    float* grad = static_cast<float*>(b.gradients) + n * gs.n;
    std::vector<float> acc(C);
    for (int t = T - 1; t >= 0; --t) {
      float* cur = beta[t & 1];
      if (t == T - 1) {
        std::fill(cur, cur + S, ctc::kLogZero);
        cur[S - 1] = lp(t, blank);
        if (S > 1) cur[S - 2] = lp(t, labels[L - 1]);
      } else {
        const float* next = beta[(t + 1) & 1];
        for (int s = 0; s < S; ++s)
          cur[s] =
              ctc::beta_step(next, labels, s, S, blank, lp(t, ctc::ext_label(labels, s, blank)));
      }
      std::fill(acc.begin(), acc.end(), ctc::kLogZero);
      const float* a = alpha + t * S;
      for (int s = 0; s < S; ++s) {
        float& slot = acc[ctc::ext_label(labels, s, blank)];
        slot = ctc::log_add_exp(slot, a[s] + cur[s]);
      }
      for (int c = 0; c < C; ++c)
        grad[t * gs.t + c * gs.c] = ctc::gradient(acc[c], lp(t, c), log_p, softmax);
    }
    // Past the input length nothing depends on the values: zero (MIOpen leaves them unwritten).
    for (int t = T; t < p.max_time(); ++t)
      for (int c = 0; c < C; ++c)
        grad[t * gs.t + c * gs.c] = 0.0f;
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<CtcLossSolver> make_ctc_loss_alpha_beta<BackendKind::Cpu>() {
  return std::make_unique<cpu::CtcLossAlphaBeta>();
}

}  // namespace anydnn
