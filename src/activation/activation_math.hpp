// MIOpen's activation formulas, written once for every backend: the CPU kernels call them from
// vectorisable loops, the CUDA kernels from device code (hence ANYDNN_HD). Each mode is a
// template so a kernel dispatches the mode once, outside its loop. Arithmetic is fp32 for every
// storage type, as MIOpen's fp32 kernels (its fp16 kernels compute in half; ours are at least
// as accurate). Formulas and edge rules follow MIOpen's kernels (src/kernels/
// activation_functions.h), including two of their quirks:
//   - POWER backward is dx = gamma*beta*y / (alpha + beta*x), without dy (MIOpen's kernel, its
//     driver's host check and its gtest reference all agree on this);
//   - TANH backward is 0 when |beta| <= eps, POWER is 0 where alpha + beta*x <= eps, with eps
//     MIOpen's EPSILON: 1e-6 for fp32, 1e-4 for 16-bit data.
#pragma once

#include <math.h>
#include <miopen/miopen.h>

#include <type_traits>

#include "core/host_device.hpp"
#include "core/vector_math.hpp"

namespace anydnn::activ {

// The descriptor's alpha, beta, gamma (their meaning depends on the mode) in fp32, plus the
// values MIOpen derives from them.
struct ActivParams {
  float alpha = 0.0f, beta = 0.0f, gamma = 0.0f;
  float eps = 1e-6f;        // MIOpen's EPSILON for the data type
  float diff_scale = 0.0f;  // beta * gamma (POWER backward)
};

// MIOpen's softrelu backward clamps x here before exp (kBNLL_THRESHOLD).
inline constexpr float kSoftReluThreshold = 50.0f;

template <miopenActivationMode_t M>
ANYDNN_HD inline float forward(float x, const ActivParams& p) {
  if constexpr (M == miopenActivationPASTHRU) {
    return x;
  } else if constexpr (M == miopenActivationLOGISTIC) {
    return vmath::logistic(x);
  } else if constexpr (M == miopenActivationTANH) {
    return p.beta * vmath::tanh(p.alpha * x);
  } else if constexpr (M == miopenActivationRELU) {
    return x > 0.0f ? x : 0.0f;
  } else if constexpr (M == miopenActivationSOFTRELU) {
    // log(1 + e^x) without overflow for large x.
    return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
  } else if constexpr (M == miopenActivationABS) {
    return fabsf(x);
  } else if constexpr (M == miopenActivationPOWER) {
    const float arg = p.alpha + p.beta * x;
    return arg <= p.eps ? 0.0f : powf(arg, p.gamma);
  } else if constexpr (M == miopenActivationCLIPPEDRELU) {
    return fminf(p.alpha, fmaxf(x, 0.0f));
  } else if constexpr (M == miopenActivationLEAKYRELU) {
    return x > 0.0f ? x : x * p.alpha;
  } else {
    static_assert(M == miopenActivationELU);
    return x > 0.0f ? x : p.alpha * expm1f(x);
  }
}

// dx from dy, the forward input x and the forward output y.
template <miopenActivationMode_t M>
ANYDNN_HD inline float backward(float dy, float x, float y, const ActivParams& p) {
  if constexpr (M == miopenActivationPASTHRU) {
    return dy;
  } else if constexpr (M == miopenActivationLOGISTIC) {
    return dy * y * (1.0f - y);
  } else if constexpr (M == miopenActivationTANH) {
    return fabsf(p.beta) <= p.eps ? 0.0f : dy * p.alpha * (p.beta - y * y / p.beta);
  } else if constexpr (M == miopenActivationRELU) {
    return x > 0.0f ? dy : 0.0f;
  } else if constexpr (M == miopenActivationSOFTRELU) {
    const float e = expf(fminf(x, kSoftReluThreshold));
    return dy * e / (e + 1.0f);
  } else if constexpr (M == miopenActivationABS) {
    return x > 0.0f ? dy : -dy;
  } else if constexpr (M == miopenActivationPOWER) {
    const float arg = p.alpha + p.beta * x;
    return arg <= p.eps ? 0.0f : p.diff_scale * y / arg;  // no dy: MIOpen's formula
  } else if constexpr (M == miopenActivationCLIPPEDRELU) {
    return x > 0.0f && x <= p.alpha ? dy : 0.0f;
  } else if constexpr (M == miopenActivationLEAKYRELU) {
    return x > 0.0f ? dy : dy * p.alpha;
  } else {
    static_assert(M == miopenActivationELU);
    return x > 0.0f ? dy : dy * (y + p.alpha);
  }
}

// The API's blend: out = alpha * value + beta * prior. `prior` is read only when beta != 0, so
// an uninitialised output (NaN, say) never leaks into a plain call.
ANYDNN_HD inline float blend(float value, float alpha, float beta, float prior) {
  return beta == 0.0f ? alpha * value : alpha * value + beta * prior;
}

// Calls f(std::integral_constant<miopenActivationMode_t, M>{}) for the runtime mode, so a
// kernel template is instantiated per mode and the mode is decided outside the loop.
// The mode must be valid (the problem checked it).
template <class F>
decltype(auto) dispatch_mode(miopenActivationMode_t mode, F&& f) {
  using M = miopenActivationMode_t;
  switch (mode) {
    case miopenActivationPASTHRU:
      return f(std::integral_constant<M, miopenActivationPASTHRU>{});
    case miopenActivationLOGISTIC:
      return f(std::integral_constant<M, miopenActivationLOGISTIC>{});
    case miopenActivationTANH:
      return f(std::integral_constant<M, miopenActivationTANH>{});
    case miopenActivationRELU:
      return f(std::integral_constant<M, miopenActivationRELU>{});
    case miopenActivationSOFTRELU:
      return f(std::integral_constant<M, miopenActivationSOFTRELU>{});
    case miopenActivationABS:
      return f(std::integral_constant<M, miopenActivationABS>{});
    case miopenActivationPOWER:
      return f(std::integral_constant<M, miopenActivationPOWER>{});
    case miopenActivationCLIPPEDRELU:
      return f(std::integral_constant<M, miopenActivationCLIPPEDRELU>{});
    case miopenActivationLEAKYRELU:
      return f(std::integral_constant<M, miopenActivationLEAKYRELU>{});
    case miopenActivationELU:
    default:
      return f(std::integral_constant<M, miopenActivationELU>{});
  }
}

}  // namespace anydnn::activ
