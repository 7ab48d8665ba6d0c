// MIOpen's LRN arithmetic (src/kernels/MIOpenLRNFwd.cl, MIOpenLRNBwd.cl), written once for every
// backend: the CPU solvers call it from their loops, the CUDA kernels from device code. With the
// window W(i) = [i - pre_pad, i + pad] of the problem (channels, or rows and columns):
//   forward   scale = K + alpha_over_area * sum_{W(i)} x^2       y = x * scale^-beta
//   backward  dx = dy * scale^-beta - ratio * x * sum_{W'(i)} (dy * y / scale)
// where W'(i) = [i - pad, i + pre_pad] is the window's transpose (the outputs whose window holds
// i) and ratio = 2 * alpha * beta / area. scale^-beta is exp(-beta * log(scale)) as MIOpen's
// kernels compute it. All in fp32 whatever the storage type.
#pragma once

#include <math.h>

#include "core/host_device.hpp"
#include "lrn/lrn_problem.hpp"

namespace anydnn::lrn {

// The per-call constants in the kernels' precision (MIOpen casts them to float).
struct Consts {
  float k, alpha_over_area, neg_beta, ratio;
  int pre_pad, pad;
};

inline Consts consts_of(const LrnProblem& p) {
  return {static_cast<float>(p.params().k),
          static_cast<float>(p.alpha_over_area()),
          static_cast<float>(-p.params().beta),
          static_cast<float>(p.backward_ratio()),
          p.pre_pad(),
          p.pad()};
}

ANYDNN_HD inline long long offset(const LrnStrides& s, long long n, long long c, long long h,
                                  long long w) {
  return n * s.n + c * s.c + h * s.h + w * s.w;
}

ANYDNN_HD inline float scale_of(float sum_sq, const Consts& k) {
  return k.k + sum_sq * k.alpha_over_area;
}

ANYDNN_HD inline float pow_neg_beta(float scale, const Consts& k) {
  return expf(k.neg_beta * logf(scale));
}

ANYDNN_HD inline float forward_value(float x, float scale, const Consts& k) {
  return x * pow_neg_beta(scale, k);
}

// `ratio_sum`: the sum of dy * y / scale over the transposed window.
ANYDNN_HD inline float backward_value(float dy, float scale, float x, float ratio_sum,
                                      const Consts& k) {
  return dy * pow_neg_beta(scale, k) - k.ratio * x * ratio_sum;
}

// The window of index i over [0, len): forward [i - before, i + after], clipped.
ANYDNN_HD inline long long window_lo(long long i, int before) {
  return i - before < 0 ? 0 : i - before;
}
ANYDNN_HD inline long long window_hi(long long i, int after, long long len) {
  return i + after >= len ? len - 1 : i + after;
}

}  // namespace anydnn::lrn
