// MIOpen's softmax arithmetic (src/kernels/MIOpenSoftmax.cl), written once for every backend:
// the CPU solvers call it from their loops, the CUDA kernels from device code. Per group of
// `vector` elements (one image in INSTANCE mode, one pixel's channels in CHANNEL mode):
//   forward  FAST      y = exp(x) / sum exp(x)              (no max subtraction: can overflow)
//            ACCURATE  y = exp(x - m) / sum exp(x - m)      m = max x
//            LOG       y = x - m - log(sum exp(x - m))
//   backward FAST, ACCURATE  dx = (dy - sum(dy * y)) * y
//            LOG             dx = dy - sum(dy) * exp(y)
// then out = alpha * value + beta * out, the prior output read only when beta != 0. All in
// fp32 whatever the storage type (MIOpen's fp16 kernel computes in half).
#pragma once

#include <math.h>
#include <miopen/miopen.h>

#include <type_traits>

#include "core/host_device.hpp"
#include "core/vector_math.hpp"
#include "softmax/softmax_problem.hpp"

namespace anydnn::softmax {

// Where group g's element v lives: the (n, c, h, w) walk of MIOpen's kernel for each mode.
struct GroupWalk {
  long long inner, hw, w;  // groups per image, h*w, w
  bool instance;
  ANYDNN_HD long long offset(const SoftmaxStrides& s, long long g, long long v) const {
    const long long n = g / inner;
    long long c, p;
    if (instance) {
      c = v / hw;
      p = v - c * hw;
    } else {
      c = v;
      p = g - n * inner;
    }
    const long long h = p / w;
    return n * s.n + c * s.c + h * s.h + (p - h * w) * s.w;
  }
};

inline GroupWalk group_walk(const SoftmaxProblem& p) {
  return {p.inner(), p.lens()[2] * p.lens()[3], p.lens()[3],
          p.mode() == MIOPEN_SOFTMAX_MODE_INSTANCE};
}

// The per-group constants a forward pass needs after its reductions: m (0 for FAST) and the
// sum of exp(x - m) (LOG: its logarithm).
struct FwdStats {
  float max, sum;
};

// Forward value of one element from x and the group's statistics.
template <miopenSoftmaxAlgorithm_t A>
ANYDNN_HD inline float forward_value(float x, FwdStats s) {
  if constexpr (A == MIOPEN_SOFTMAX_LOG) return x - s.max - s.sum;  // s.sum holds log(sum)
  if constexpr (A == MIOPEN_SOFTMAX_FAST) return vmath::exp(x) / s.sum;
  return vmath::exp(x - s.max) / s.sum;
}

// The term one element adds to the forward sum (the max already known).
template <miopenSoftmaxAlgorithm_t A>
ANYDNN_HD inline float forward_term(float x, float max) {
  return A == MIOPEN_SOFTMAX_FAST ? vmath::exp(x) : vmath::exp(x - max);
}

// Turns the accumulated sum into the statistic forward_value takes.
template <miopenSoftmaxAlgorithm_t A>
ANYDNN_HD inline FwdStats forward_stats(float max, float sum) {
  if constexpr (A == MIOPEN_SOFTMAX_LOG) return {max, logf(sum)};
  return {A == MIOPEN_SOFTMAX_FAST ? 0.0f : max, sum};
}

// The term one element adds to the backward dot product.
template <miopenSoftmaxAlgorithm_t A>
ANYDNN_HD inline float backward_term(float y, float dy) {
  return A == MIOPEN_SOFTMAX_LOG ? dy : y * dy;
}

template <miopenSoftmaxAlgorithm_t A>
ANYDNN_HD inline float backward_value(float y, float dy, float dot) {
  if constexpr (A == MIOPEN_SOFTMAX_LOG) return dy - dot * vmath::exp(y);
  return (dy - dot) * y;
}

ANYDNN_HD inline float blend(float v, float alpha, float beta, float prior, bool read_prior) {
  return read_prior ? alpha * v + beta * prior : alpha * v;
}

// Calls f(std::integral_constant<miopenSoftmaxAlgorithm_t, A>{}) for the runtime algorithm.
template <class F>
inline void dispatch_algorithm(miopenSoftmaxAlgorithm_t a, F&& f) {
  if (a == MIOPEN_SOFTMAX_FAST)
    f(std::integral_constant<miopenSoftmaxAlgorithm_t, MIOPEN_SOFTMAX_FAST>{});
  else if (a == MIOPEN_SOFTMAX_LOG)
    f(std::integral_constant<miopenSoftmaxAlgorithm_t, MIOPEN_SOFTMAX_LOG>{});
  else
    f(std::integral_constant<miopenSoftmaxAlgorithm_t, MIOPEN_SOFTMAX_ACCURATE>{});
}

}  // namespace anydnn::softmax
