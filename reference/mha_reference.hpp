// Naive multi-head-attention reference in double: the test oracle of the MHA solvers. It follows
// MIOpen's CPU reference (test/gtest/mha_helper.hpp: MultiHeadAttentionForwardfp8 and
// MultiHeadAttentionBackwardDataf8, which carry every scale and descale) with:
//   - the descriptor's scale on Q K^T (MIOpen's kernels apply it; its helper leaves it to the
//     caller), the bias added (MIOpen's helper adds it; its kernel subtracts it), the causal mask
//     (query i sees keys j <= i) and dropout, which its helper leaves out of backward;
//   - the exact gradient through dropout: dS = scale * P * (keep ? dPd / (1 - p) : 0 - Di) with
//     Di = sum(dO * O) (MIOpen's kernel scales both dPd and Di by (1 - p) instead, which is the
//     gradient only without dropout; docs/mha.md).
// The dropout keep decision is the library's (mha/mha_math.hpp), shared on purpose: it is a
// hash, not arithmetic to verify. Everything else is written here, in double.
// Values are packed logical order: Q [N, H, Sq, D], K [N, H, Sk, D], V [N, H, Sk, Dv],
// O and dO [N, H, Sq, Dv], M and ZInv [N, H, Sq], bias (empty: none) [N, H, Sq, Sk].
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace anydnn::ref {

struct MhaShape {
  size_t n = 1, h = 1, sq = 1, sk = 1, d = 1, dv = 1;
};

struct MhaParams {
  double scale = 1.0;  // the MHA descriptor's
  bool causal = false;
  double descale_q = 1, descale_k = 1, descale_v = 1, descale_s = 1, scale_s = 1, scale_o = 1;
  double descale_o = 1, descale_do = 1, descale_ds = 1, scale_ds = 1, scale_dq = 1, scale_dk = 1,
         scale_dv = 1;
  float dropout = 0.0f;  // as the library reads it (a float tensor)
  uint64_t seed = 0, offset = 0;
};

struct MhaForwardResult {
  std::vector<double> o, m, zinv;
  double amax_o = 0, amax_s = 0;
};

struct MhaBackwardResult {
  std::vector<double> dq, dk, dv;
  double amax_dq = 0, amax_dk = 0, amax_dv = 0, amax_ds = 0;
};

MhaForwardResult mha_forward(const MhaShape& s, const MhaParams& p, const std::vector<double>& q,
                             const std::vector<double>& k, const std::vector<double>& v,
                             const std::vector<double>& bias);

// m and zinv are the forward's saved statistics (the backward recomputes P from them, as MIOpen).
MhaBackwardResult mha_backward(const MhaShape& s, const MhaParams& p, const std::vector<double>& q,
                               const std::vector<double>& k, const std::vector<double>& v,
                               const std::vector<double>& o, const std::vector<double>& d_o,
                               const std::vector<double>& m, const std::vector<double>& zinv,
                               const std::vector<double>& bias);

}  // namespace anydnn::ref
