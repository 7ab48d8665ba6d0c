// The CUDA CTC loss kernels (CtcLossAlphaBeta, ctc_loss_alpha_beta.cu) and their host-side
// preparation, in MIOpen's CTCLossGPU workspace layout, one thread block per batch element:
//   int_region(p): MIOpen's integer region (input and label lengths, label offsets, repeats,
//     labels), and per batch element in its extended-label slots what makes the gradient pass
//     linear and deterministic: for each label the next position holding the same label
//     (next_same[0, L)), which positions start such a chain (is_head[L, 2L)), and where the chain
//     of labels equal to the blank starts ([2L]); the caller copies it to the workspace start;
//   log_softmax_rows (softmax applied): a warp per (t, n) row into the [T, N, C] float region;
//   ctc_alpha_beta: the alpha rows over the states (a thread per state, a barrier per time
//     step), the loss, then per time step from the last down: the beta row (two ping-pong rows)
//     while every class gets its gradient for "no state of mine" (exp(lp) or 0), a barrier, and
//     one thread per chain (each distinct label, and the blank) sums alpha + beta along its
//     positions in a fixed order and writes its class's gradient. Rows past the input length
//     are zeroed.
// The arithmetic is ctc/ctc_math.hpp's, shared with the CPU solver; no atomics, so reruns give
// identical bytes (MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "backend/cuda/cuda_check.hpp"
#include "ctc/ctc_math.hpp"
#include "ctc/ctc_solver.hpp"

namespace anydnn::cuda::ctc_kernels {

namespace {

constexpr unsigned kBlock = 256;

struct CtcArgs {
  int T, N, C, max_s, blank;
  bool softmax;
  CtcStrides ps, gs;
  // Offsets into the workspace in 4-byte units.
  long long ext, logp, alpha, beta;
};

__global__ void __launch_bounds__(kBlock)
    log_softmax_rows(const float* probs, float* ws, CtcArgs a) {
  const int warps = blockDim.x / 32;
  const long long row = static_cast<long long>(blockIdx.x) * warps + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= static_cast<long long>(a.T) * a.N) return;
  const long long t = row / a.N, n = row % a.N;
  const float* x = probs + t * a.ps.t + n * a.ps.n;
  float m = -INFINITY;
  for (int c = lane; c < a.C; c += 32)
    m = fmaxf(m, x[c * a.ps.c]);
  for (int o = 16; o > 0; o /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.0f;
  for (int c = lane; c < a.C; c += 32)
    s += expf(x[c * a.ps.c] - m);
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  const float ls = logf(s);
  float* out = ws + a.logp + row * a.C;
  for (int c = lane; c < a.C; c += 32)
    out[c] = fmaxf(x[c * a.ps.c] - m - ls, ctc::kLogZero);
}

__global__ void __launch_bounds__(kBlock)
    ctc_alpha_beta(const float* probs, float* ws, float* losses, float* grads, CtcArgs a) {
  const int n = blockIdx.x;
  const int* wi = reinterpret_cast<const int*>(ws);
  const int T = wi[n], L = wi[a.N + n], S = 2 * L + 1, blank = a.blank;
  const int* labels = wi + 4 * a.N + wi[2 * a.N + n];
  const int* next_same = wi + a.ext + static_cast<long long>(n) * a.max_s;
  const int* is_head = next_same + L;
  const int blank_chain = next_same[2 * L];
  const float* logp = ws + a.logp;
  auto lp = [&](int t, int c) {
    return a.softmax ? logp[(static_cast<long long>(t) * a.N + n) * a.C + c]
                     : probs[t * a.ps.t + n * a.ps.n + c * a.ps.c];
  };
  float* alpha = ws + a.alpha + static_cast<long long>(n) * a.T * a.max_s;
  float* beta[2] = {ws + a.beta + static_cast<long long>(n) * 2 * a.max_s, nullptr};
  beta[1] = beta[0] + a.max_s;
  float* g = grads + n * a.gs.n;
  __shared__ float log_p_shared;

  for (int s = threadIdx.x; s < S; s += blockDim.x)
    alpha[s] = s == 0 ? lp(0, blank) : s == 1 ? lp(0, labels[0]) : ctc::kLogZero;
  __syncthreads();
  for (int t = 1; t < T; ++t) {
    for (int s = threadIdx.x; s < S; s += blockDim.x)
      alpha[t * S + s] = ctc::alpha_step(alpha + (t - 1) * S, labels, s, blank,
                                         lp(t, ctc::ext_label(labels, s, blank)));
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    log_p_shared = ctc::log_likelihood(alpha + (T - 1) * S, S);
    losses[n] = -log_p_shared;
  }
  __syncthreads();
  const float log_p = log_p_shared;

  for (int t = T - 1; t >= 0; --t) {
    float* cur = beta[t & 1];
    const float* nxt = beta[(t + 1) & 1];
    for (int s = threadIdx.x; s < S; s += blockDim.x) {
      const float l = lp(t, ctc::ext_label(labels, s, blank));
      cur[s] = t == T - 1 ? (s >= S - 2 ? l : ctc::kLogZero)
                          : ctc::beta_step(nxt, labels, s, S, blank, l);
    }
    for (int c = threadIdx.x; c < a.C; c += blockDim.x)
      g[t * a.gs.t + c * a.gs.c] = ctc::gradient(ctc::kLogZero, lp(t, c), log_p, a.softmax);
    __syncthreads();
    const float* at = alpha + t * S;
    // Chains: j < L a distinct label's first position; j == L the blank's states.
    for (int j = threadIdx.x; j <= L; j += blockDim.x) {
      if (j < L && !is_head[j]) continue;
      float acc = ctc::kLogZero;
      int cls = blank, k = blank_chain;
      if (j == L) {
        for (int s = 0; s < S; s += 2)
          acc = ctc::log_add_exp(acc, at[s] + cur[s]);
      } else {
        cls = labels[j];
        k = j;
      }
      for (; k >= 0; k = next_same[k])
        acc = ctc::log_add_exp(acc, at[2 * k + 1] + cur[2 * k + 1]);
      g[t * a.gs.t + cls * a.gs.c] = ctc::gradient(acc, lp(t, cls), log_p, a.softmax);
    }
    __syncthreads();
  }
  // Past the input length nothing depends on the values: zero (MIOpen leaves them unwritten).
  const long long rest = static_cast<long long>(a.T - T) * a.C;
  for (long long i = threadIdx.x; i < rest; i += blockDim.x) {
    const long long t = T + i / a.C, c = i % a.C;
    g[t * a.gs.t + c * a.gs.c] = 0.0f;
  }
}

}  // namespace

inline std::vector<int> int_region(const CtcLossProblem& p) {
  const int N = p.batch(), blank = p.blank();
  // MIOpen's integer region, then per batch element in its extended-label slots:
  // next_same[0, L), is_head[L, 2L), blank chain start at 2L.
  std::vector<int> host(p.ws_float_logp(), 0);
  for (int n = 0; n < N; ++n) {
    host[n] = p.input_lengths()[n];
    host[N + n] = p.label_lengths()[n];
    host[2 * N + n] = p.label_offsets()[n];
    host[3 * N + n] = p.repeats()[n];
  }
  std::copy(p.labels().begin(), p.labels().end(), host.begin() + 4 * N);
  const size_t ext = 4 * static_cast<size_t>(N) + p.total_label_length();
  for (int n = 0; n < N; ++n) {
    const int L = p.label_lengths()[n];
    const int* l = p.labels().data() + p.label_offsets()[n];
    int* slot = host.data() + ext + static_cast<size_t>(n) * p.max_s();
    slot[2 * L] = -1;
    for (int j = L - 1; j >= 0; --j) {
      slot[j] = -1;
      slot[L + j] = l[j] != blank;
      for (int k = j + 1; k < L; ++k)
        if (l[k] == l[j]) {
          slot[j] = k;
          break;
        }
      for (int k = 0; k < j; ++k)
        if (l[k] == l[j]) slot[L + j] = 0;
      if (l[j] == blank) slot[2 * L] = j;  // the first such j wins (j descends)
    }
  }
  return host;
}

// Launches on `s`; the workspace starts with int_region(p) already.
inline void launch(cudaStream_t s, const CtcLossProblem& p, const CtcLossBuffers& b) {
  const int N = p.batch();
  const size_t ext = 4 * static_cast<size_t>(N) + p.total_label_length();
  CtcArgs a{p.max_time(),
            N,
            p.classes(),
            p.max_s(),
            p.blank(),
            p.apply_softmax(),
            p.probs_strides(),
            p.grad_strides(),
            static_cast<long long>(ext),
            static_cast<long long>(p.ws_float_logp()),
            static_cast<long long>(p.ws_float_alpha()),
            static_cast<long long>(p.ws_float_beta())};
  const float* probs = static_cast<const float*>(b.probs);
  float* ws = static_cast<float*>(b.workspace);
  if (p.apply_softmax()) {
    const long long rows = static_cast<long long>(p.max_time()) * N;
    const unsigned grid = static_cast<unsigned>((rows + kBlock / 32 - 1) / (kBlock / 32));
    log_softmax_rows<<<grid, kBlock, 0, s>>>(probs, ws, a);
    ANYDNN_CUDA_LAUNCHED("CTC loss log-softmax");
  }
  ctc_alpha_beta<<<static_cast<unsigned>(N), kBlock, 0, s>>>(
      probs, ws, static_cast<float*>(b.losses), static_cast<float*>(b.gradients), a);
  ANYDNN_CUDA_LAUNCHED("CTC loss alpha-beta");
}

}  // namespace anydnn::cuda::ctc_kernels
