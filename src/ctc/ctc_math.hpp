// The CTC loss arithmetic both backends run, per batch element, in float log space with
// MIOpen's cutoff (-1e20 stands for log 0, so no inf - inf ever makes a NaN):
//   ext(s):  the extended label, blank at even s, labels[s / 2] at odd s (S = 2L + 1 states);
//   alpha_t(s) = lp_t(ext s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) when
//               ext s is a label other than the blank and ext(s-2));
//   beta_t(s)  = lp_t(ext s) + logsumexp(beta_{t+1}(s), beta_{t+1}(s+1), beta_{t+1}(s+2) likewise);
//   loss = -log P, log P = logsumexp(alpha_{T-1}(S-1), alpha_{T-1}(S-2));
//   acc_t(c) = logsumexp over s with ext s = c of alpha_t(s) + beta_t(s) (both hold lp_t once);
//   gradient, softmax applied (w.r.t. the activations): exp(lp) - exp(acc - lp - log P);
//            not applied (the input is log p; MIOpen's gradient is w.r.t. p):
//            -exp(acc - 2 lp - log P).
// Inline functions, __host__ __device__ under nvcc, so the CUDA kernels and the CPU solver share
// them.
#pragma once

#include <math.h>

#include "core/host_device.hpp"

namespace anydnn::ctc {

// MIOpen's NEGATIVE_CUTOFF_VAL.
constexpr float kLogZero = -1e20f;

ANYDNN_HD inline float log_add_exp(float x, float y) {
  const float a = x > y ? x : y, b = x > y ? y : x;
  if (b - a <= kLogZero) return fmaxf(a, kLogZero);
  return fmaxf(a + log1pf(expf(b - a)), kLogZero);
}

// True when state s (odd: a label) may be reached from s - 2 (skipping the blank between).
ANYDNN_HD inline bool can_skip_from_prev(const int* labels, int s, int blank) {
  if (s < 2 || (s & 1) == 0) return false;
  const int l = labels[s >> 1];
  return l != blank && l != labels[(s >> 1) - 1];
}

// True when state s (odd) may reach s + 2 (S states): the same transition as
// can_skip_from_prev(s + 2). (MIOpen tests ext(s) against the blank here, which differs only for
// a label equal to the blank id, where its beta would then disagree with its alpha.)
ANYDNN_HD inline bool can_skip_to_next(const int* labels, int s, int S, int blank) {
  if (s + 2 >= S || (s & 1) == 0) return false;
  const int l = labels[(s >> 1) + 1];
  return l != blank && l != labels[s >> 1];
}

ANYDNN_HD inline int ext_label(const int* labels, int s, int blank) {
  return (s & 1) ? labels[s >> 1] : blank;
}

// alpha_t(s) from the previous row.
ANYDNN_HD inline float alpha_step(const float* prev, const int* labels, int s, int blank,
                                  float lp) {
  float a = prev[s];
  if (s >= 1) a = log_add_exp(a, prev[s - 1]);
  if (can_skip_from_prev(labels, s, blank)) a = log_add_exp(a, prev[s - 2]);
  return fmaxf(a + lp, kLogZero);
}

// beta_t(s) from the next row.
ANYDNN_HD inline float beta_step(const float* next, const int* labels, int s, int S, int blank,
                                 float lp) {
  float b = next[s];
  if (s + 1 < S) b = log_add_exp(b, next[s + 1]);
  if (can_skip_to_next(labels, s, S, blank)) b = log_add_exp(b, next[s + 2]);
  return fmaxf(b + lp, kLogZero);
}

// log P from the last alpha row (S states; one state when the label sequence is empty).
ANYDNN_HD inline float log_likelihood(const float* last, int S) {
  return S == 1 ? last[0] : log_add_exp(last[S - 1], last[S - 2]);
}

ANYDNN_HD inline float gradient(float acc, float lp, float log_p, bool softmax) {
  const float g = acc - (softmax ? lp : 2.0f * lp) - log_p;
  const float e = g <= kLogZero ? 0.0f : expf(g);
  return softmax ? expf(lp) - e : -e;
}

}  // namespace anydnn::ctc
