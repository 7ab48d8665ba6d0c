#include "backend/cpu/conv/conv_epilogue.hpp"

#include "activation/activation_math.hpp"

namespace anydnn::cpu {

namespace {

// v = act(v * scale[k] + ra * z + shift[k]) over one block; Affine: scale / shift (either may
// be null: 1 / 0), Resid: a residual. The order is the contract's; with only a shift it is
// conv + bias, the bits of the unfused bias call.
template <miopenActivationMode_t M, bool Affine, bool Resid>
inline void body(const CpuEpilogue::Block& b) {
  // Locals: the loop then knows no store to v can change them.
  const activ::ActivParams p = b.params;
  const float ra = b.residual_alpha;
  for (long r = 0; r < b.rows; ++r) {
    const long k = b.k + r * b.k_step;
    const float s = Affine && b.scale ? b.scale[k] : 1.0f;
    const float t = Affine && b.shift ? b.shift[k] : 0.0f;
    float* __restrict v = b.v + r * b.ld;
    const float* __restrict z = Resid ? b.z + r * b.ld : nullptr;
    const long n = b.cols;
    if (Affine && b.scale) {
      for (long i = 0; i < n; ++i) {
        float x = v[i] * s;
        if constexpr (Resid) x += ra * z[i];
        v[i] = activ::forward<M>(x + t, p);
      }
    } else {
      for (long i = 0; i < n; ++i) {
        float x = v[i];
        if constexpr (Resid) x += ra * z[i];
        if constexpr (Affine) x += t;
        v[i] = activ::forward<M>(x, p);
      }
    }
  }
}

// The loop compiled for each instruction set (as kernels/isa_dispatch.hpp's with_isa does, but
// chosen once: a pointer to the instantiation).
template <miopenActivationMode_t M, bool A, bool R>
void body_generic(const CpuEpilogue::Block& b) {
  body<M, A, R>(b);
}

#if defined(ANYDNN_HAVE_X86_KERNELS) && (defined(__GNUC__) || defined(__clang__))
template <miopenActivationMode_t M, bool A, bool R>
[[gnu::flatten]] __attribute__((target("avx2,fma,f16c"))) void body_avx2(
    const CpuEpilogue::Block& b) {
  body<M, A, R>(b);
}

template <miopenActivationMode_t M, bool A, bool R>
[[gnu::flatten]] __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma,f16c"))) void
body_avx512(const CpuEpilogue::Block& b) {
  body<M, A, R>(b);
}
#endif

template <miopenActivationMode_t M, bool A, bool R>
CpuEpilogue::Fn pick(CpuIsa isa) {
#if defined(ANYDNN_HAVE_X86_KERNELS) && (defined(__GNUC__) || defined(__clang__))
  if (isa == CpuIsa::Avx512) return &body_avx512<M, A, R>;
  if (isa == CpuIsa::Avx2) return &body_avx2<M, A, R>;
#endif
  (void)isa;
  return &body_generic<M, A, R>;
}

}  // namespace

Applicability cpu_epilogue_support(const ConvProblem& p, const ConvEpilogueNeeds& needs,
                                   bool any_residual_type) {
  ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
  const miopenDataType_t t = p.y().type();
  ANYDNN_REJECT_IF(t != miopenFloat && t != miopenHalf && t != miopenBFloat16,
                   "the epilogue needs a float output");
  ANYDNN_REJECT_IF(needs.residual && t != miopenFloat && !any_residual_type,
                   "a residual (z) only on fp32 data");
  return Applicability::yes();
}

CpuEpilogue::CpuEpilogue(const ConvEpilogue* ep, CpuIsa isa, const float* y_base)
    : ep_(ep), y_base_(y_base) {
  if (ep == nullptr) return;
  z_base_ = static_cast<const float*>(ep->residual);
  const bool affine = ep->scale != nullptr || ep->shift != nullptr;
  const bool resid = ep->residual != nullptr;
  activ::dispatch_mode(ep->activation.mode, [&](auto mode) {
    constexpr miopenActivationMode_t M = decltype(mode)::value;
    fn_ = affine ? (resid ? pick<M, true, true>(isa) : pick<M, true, false>(isa))
                 : (resid ? pick<M, false, true>(isa) : pick<M, false, false>(isa));
  });
}

RowEpilogue CpuEpilogue::gemm_hook(GemmHook& holder, long channel0) const {
  if (!active()) return {};
  holder = GemmHook{this, channel0};
  RowEpilogue h;
  h.ctx = &holder;
  h.fn = [](const void* ctx, float* c, long ld, long rows, long cols, long row0, long step) {
    const auto* g = static_cast<const GemmHook*>(ctx);
    g->ep->rows(c, ld, rows, cols, g->channel0 + row0, step);
  };
  return h;
}

void CpuEpilogue::rows(float* y, long ld, long rows, long cols, long k, long k_step) const {
  rows_with(y, z_base_ ? z_base_ + (y - y_base_) : nullptr, ld, rows, cols, k, k_step);
}

void CpuEpilogue::rows_with(float* v, const float* z, long ld, long rows, long cols, long k,
                            long k_step) const {
  if (rows <= 0 || cols <= 0) return;
  fn_(Block{v, z, ld, rows, cols, k, k_step, ep_->scale, ep_->shift, ep_->residual_alpha,
            ep_->activation.params});
}

}  // namespace anydnn::cpu
