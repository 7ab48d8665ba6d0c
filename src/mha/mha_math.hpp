// The multi-head-attention arithmetic every backend and the double reference share, written once
// (ANYDNN_HD: host and device): the run-time scalars (MIOpen passes them as 1-element
// tensors, so they live in device memory on CUDA and kernels read them there), the factors
// derived from them, and the dropout keep decision.
//
// Forward, per batch n, head h, query row i and key column j (docs/mha.md):
//   T = scale * descaleQ * descaleK * (Q K^T)[i, j] + bias[i, j]   (-inf where the causal mask
//       hides j > i);  M = max_j T;  ZInv = 1 / sum_j exp(T - M);  P = exp(T - M) * ZInv
//   S = keep(i, j) ? P * scaleS / (1 - p) : 0;  O' = descaleS * descaleV * S V;  O = O' * scaleO
//   AmaxS = max P (before dropout), AmaxO = max |O'| (before scaleO), as MIOpen's kernels.
//
// Dropout draws from the same counter-based generator as the dropout API
// (DropoutDescriptor::keep, core/dropout_descriptor.cpp): element e of the [N, H, Sq, Sk]
// attention matrix (logical order) is kept when uniform(seed, offset, e) >= p, so a mask depends
// only on (seed, offset, e): the same on the CPU, on the GPU and in the reference. MIOpen draws
// from rocrand's XORWOW instead; its bits cannot be reproduced here (docs/mha.md).
#pragma once

#include <math.h>

#include <cstdint>

#include "core/host_device.hpp"

namespace anydnn::mha {

// Pointers to the 1-element scalar tensors of one call (host or device memory: the backend's).
// A null pointer reads as the neutral value (1 for a scale, 0 for the dropout rate, seed and
// offset), as MIOpen's softmax kernel reads its optional ones.
struct ScalarPtrs {
  const float* descale_q = nullptr;
  const float* descale_k = nullptr;
  const float* descale_v = nullptr;
  const float* descale_s = nullptr;
  const float* scale_s = nullptr;
  const float* scale_o = nullptr;  // forward
  const float* descale_o = nullptr;
  const float* descale_do = nullptr;
  const float* descale_ds = nullptr;
  const float* scale_ds = nullptr;
  const float* scale_dq = nullptr;
  const float* scale_dk = nullptr;
  const float* scale_dv = nullptr;
  const float* dropout = nullptr;
  const int64_t* seed = nullptr;
  const int64_t* offset = nullptr;
};

// The scalar values of one call.
struct Scalars {
  float descale_q = 1, descale_k = 1, descale_v = 1, descale_s = 1, scale_s = 1, scale_o = 1;
  float descale_o = 1, descale_do = 1, descale_ds = 1, scale_ds = 1, scale_dq = 1, scale_dk = 1,
        scale_dv = 1;
  float dropout = 0;
  uint64_t seed = 0, offset = 0;
};

ANYDNN_HD inline float value_or(const float* p, float v) {
  return p != nullptr ? *p : v;
}

ANYDNN_HD inline Scalars load_scalars(const ScalarPtrs& p) {
  Scalars s;
  s.descale_q = value_or(p.descale_q, 1.0f);
  s.descale_k = value_or(p.descale_k, 1.0f);
  s.descale_v = value_or(p.descale_v, 1.0f);
  s.descale_s = value_or(p.descale_s, 1.0f);
  s.scale_s = value_or(p.scale_s, 1.0f);
  s.scale_o = value_or(p.scale_o, 1.0f);
  s.descale_o = value_or(p.descale_o, 1.0f);
  s.descale_do = value_or(p.descale_do, 1.0f);
  s.descale_ds = value_or(p.descale_ds, 1.0f);
  s.scale_ds = value_or(p.scale_ds, 1.0f);
  s.scale_dq = value_or(p.scale_dq, 1.0f);
  s.scale_dk = value_or(p.scale_dk, 1.0f);
  s.scale_dv = value_or(p.scale_dv, 1.0f);
  s.dropout = value_or(p.dropout, 0.0f);
  s.seed = p.seed != nullptr ? static_cast<uint64_t>(*p.seed) : 0;
  s.offset = p.offset != nullptr ? static_cast<uint64_t>(*p.offset) : 0;
  return s;
}

// --- dropout -----------------------------------------------------------------------------------

ANYDNN_HD inline uint64_t mix(uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Dropout is on when p > 0 (a NaN rate counts as 0); p >= 1 drops everything.
ANYDNN_HD inline bool dropout_on(float p) {
  return p > 0.0f;
}

// The seed / offset part of the hash, once per call: DropoutDescriptor::keep's with the offset
// as its counter.
struct Dropout {
  uint64_t key = 0;
  // Element kept when its 53-bit draw u * 2^53 >= threshold, i.e. u >= p exactly (both sides are
  // exact in double); 0 keeps everything.
  uint64_t threshold = 0;
  float keep_scale = 1.0f;  // 1 / (1 - p)
};

ANYDNN_HD inline Dropout make_dropout(const Scalars& s) {
  Dropout d;
  d.key = mix(s.seed ^ 0x9e3779b97f4a7c15ull) + mix(s.offset) * 31;
  if (!dropout_on(s.dropout)) return d;
  constexpr double kTwo53 = 9007199254740992.0;
  const double t = ceil(static_cast<double>(s.dropout) * kTwo53);
  d.threshold = t >= kTwo53 ? static_cast<uint64_t>(kTwo53) : static_cast<uint64_t>(t);
  d.keep_scale = 1.0f / (1.0f - s.dropout);
  return d;
}

// Whether element `e` (logical index in [N, H, Sq, Sk]) survives dropout.
ANYDNN_HD inline bool keep(const Dropout& d, uint64_t e) {
  return d.threshold == 0 || (mix(d.key + e) >> 11) >= d.threshold;
}

// --- derived factors ---------------------------------------------------------------------------

// Forward: T = qk * (Q K^T) + bias; S = P * s (kept); O' = o_pre * (S V); O = O' * scale_o.
struct ForwardFactors {
  float qk, s, o_pre, scale_o;
};

ANYDNN_HD inline ForwardFactors forward_factors(float scale, const Scalars& s, const Dropout& d) {
  return {scale * s.descale_q * s.descale_k, s.scale_s * d.keep_scale, s.descale_s * s.descale_v,
          s.scale_o};
}

// Backward, on the raw (stored) tensors, following MIOpen's kernels with the exact gradient:
//   T  = qk * (Q K^T) + bias, P = exp(T - M) * ZInv, Pd = keep ? P / (1 - p) : 0
//   dPd = dov * (dO V^T), dP = keep ? dPd / (1 - p) : 0, Di = doo * sum_d dO * O
//   dS = scale * P * (dP - Di)   (AmaxDS = max |dS|)
//   dQ' = dq * (dS K), dK' = dk * (dS^T Q), dV' = dv * (Pd^T dO)   (Amax* = max |'|)
//   dQ = dQ' * scale_dq, dK = dK' * scale_dk, dV = dV' * scale_dv.
struct BackwardFactors {
  float qk, dov, doo, scale, dq, dk, dv, scale_dq, scale_dk, scale_dv;
};

ANYDNN_HD inline BackwardFactors backward_factors(float scale, const Scalars& s) {
  const float ds = s.scale_ds * s.descale_ds;  // dS through its fp8 round trip
  const float sd = s.scale_s * s.descale_s;    // Pd likewise
  return {scale * s.descale_q * s.descale_k,
          s.descale_do * s.descale_v,
          s.descale_o * s.descale_do,
          scale,
          ds * s.descale_k,
          ds * s.descale_q,
          sd * s.descale_do,
          s.scale_dq,
          s.scale_dk,
          s.scale_dv};
}

// The causal mask (MIOpen's miopenMhaMaskCausal, CK's top-left): query i sees keys j <= i.
ANYDNN_HD inline bool visible(bool causal, long long i, long long j) {
  return !causal || j <= i;
}

}  // namespace anydnn::mha
