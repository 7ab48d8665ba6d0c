#include "backend/cpu/bn/bn_activation.hpp"

#include "activation/activation_math.hpp"

namespace anydnn::cpu {

namespace {

template <miopenActivationMode_t M>
inline void fwd_body(float* v, long n, const activ::ActivParams& params) {
  const activ::ActivParams p = params;
  for (long i = 0; i < n; ++i)
    v[i] = activ::forward<M>(v[i], p);
}

// No __restrict: g may be dy (each element is read before it is written).
template <miopenActivationMode_t M, bool Lanes>
inline void bwd_body(const float* dy, const float* x, const float* a, const float* m,
                     const float* b, float* g, long n, const activ::ActivParams& params) {
  const activ::ActivParams p = params;
  const float a0 = a[0], m0 = m[0], b0 = b[0];
  for (long i = 0; i < n; ++i) {
    const float pre = Lanes ? a[i] * (x[i] - m[i]) + b[i] : a0 * (x[i] - m0) + b0;
    const float post = activ::forward<M>(pre, p);
    g[i] = activ::backward<M>(dy[i], pre, post, p);
  }
}

template <miopenActivationMode_t M>
void fwd_generic(float* v, long n, const activ::ActivParams& p) {
  fwd_body<M>(v, n, p);
}
template <miopenActivationMode_t M, bool L>
void bwd_generic(const float* dy, const float* x, const float* a, const float* m, const float* b,
                 float* g, long n, const activ::ActivParams& p) {
  bwd_body<M, L>(dy, x, a, m, b, g, n, p);
}

#if defined(ANYDNN_HAVE_X86_KERNELS) && (defined(__GNUC__) || defined(__clang__))
#define ANYDNN_BN_ACT_TARGETS(suffix, target_list)                                               \
  template <miopenActivationMode_t M>                                                            \
  [[gnu::flatten]] __attribute__((target(target_list))) void fwd_##suffix(                       \
      float* v, long n, const activ::ActivParams& p) {                                           \
    fwd_body<M>(v, n, p);                                                                        \
  }                                                                                              \
  template <miopenActivationMode_t M, bool L>                                                    \
  [[gnu::flatten]] __attribute__((target(target_list))) void bwd_##suffix(                       \
      const float* dy, const float* x, const float* a, const float* m, const float* b, float* g, \
      long n, const activ::ActivParams& p) {                                                     \
    bwd_body<M, L>(dy, x, a, m, b, g, n, p);                                                     \
  }
ANYDNN_BN_ACT_TARGETS(avx2, "avx2,fma,f16c")
ANYDNN_BN_ACT_TARGETS(avx512, "avx512f,avx512vl,avx512dq,avx512bw,avx2,fma,f16c")
#undef ANYDNN_BN_ACT_TARGETS
#endif

}  // namespace

Applicability cpu_bn_activation_support(const BnProblem& p) {
  ANYDNN_REJECT_IF(p.direction() == BnDirection::Backward && !p.save(),
                   "backward with a fused activation needs the saved statistics");
  return Applicability::yes();
}

BnActivationRows::BnActivationRows(const FusedActivation* a, CpuIsa isa) {
  if (a == nullptr) return;
  params_ = a->params;
  activ::dispatch_mode(a->mode, [&](auto mode) {
    constexpr miopenActivationMode_t M = decltype(mode)::value;
#if defined(ANYDNN_HAVE_X86_KERNELS) && (defined(__GNUC__) || defined(__clang__))
    if (isa == CpuIsa::Avx512) {
      fwd_ = &fwd_avx512<M>;
      bwd_ = &bwd_avx512<M, false>;
      bwd_lanes_ = &bwd_avx512<M, true>;
      return;
    }
    if (isa == CpuIsa::Avx2) {
      fwd_ = &fwd_avx2<M>;
      bwd_ = &bwd_avx2<M, false>;
      bwd_lanes_ = &bwd_avx2<M, true>;
      return;
    }
#endif
    (void)isa;
    fwd_ = &fwd_generic<M>;
    bwd_ = &bwd_generic<M, false>;
    bwd_lanes_ = &bwd_generic<M, true>;
  });
}

}  // namespace anydnn::cpu
