// GemmFwd1x1_0_1 (CUDA): forward 1x1 convolution (stride 1, no padding) on packed NCHW /
// NCDHW, straight to cuBLAS without im2col: per group, one GEMM batched over the images,
// Y_{n,g} [K/G x P] = W_g [K/G x C/G] x X_{n,g} [C/G x P]. No workspace. A fused chain's
// epilogue is one pass over y after the GEMMs (conv/conv_epilogue.hpp says why).
#include <memory>

#include "backend/cuda/conv/conv_epilogue.hpp"
#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "conv/solver_specs.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

class GemmFwd1x1 final : public GemmFwd1x1Spec {
 public:
  GemmFwd1x1() : GemmFwd1x1Spec(kCublas) {}
  // Per group: one GEMM batched over the images.
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const GemmShape s(p);
    const double e = static_cast<double>(data_type_size(p.data_type()));
    return calibrated_ms(
        name(), p.data_type(), ctx.config.conv_allow_tf32,
        static_cast<double>(s.groups) *
            cublas_gemm_ms(backend_of(ctx).rates(),
                           gemm_math(p.data_type(), ctx.config.conv_allow_tf32), s.k_per_group,
                           s.pixels, s.c_per_group, p.batch(), e, e));
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const GemmShape s(p);
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    const size_t elem = data_type_size(t);
    const int batch = static_cast<int>(p.batch());
    const size_t k_total = p.out_channels();
    return [be, math, s, t, elem, batch, k_total](const ConvBuffers& b) {
      const long long cpg = static_cast<long long>(s.c_per_group);
      const long long kpg = static_cast<long long>(s.k_per_group);
      const long long pixels = static_cast<long long>(s.pixels);
      for (size_t g = 0; g < s.groups; ++g) {
        gemm_rm(be->cublas(), false, false, static_cast<int>(kpg), static_cast<int>(pixels),
                static_cast<int>(cpg),
                GemmOperand{static_cast<const char*>(b.w) + g * kpg * cpg * elem, t, cpg, 0},
                GemmOperand{static_cast<const char*>(b.x) + g * cpg * pixels * elem, t, pixels,
                            static_cast<long long>(s.x_image)},
                0.0f, static_cast<char*>(b.y) + g * kpg * pixels * elem, t, pixels,
                static_cast<long long>(s.y_image), batch, math);
      }
      if (b.epilogue)
        apply_epilogue_packed(epilogue_args(*b.epilogue), t, b.y, static_cast<size_t>(batch),
                              k_total, s.pixels, be->cuda_stream());
    };
  }
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return gemm_epilogue_support(p, needs);
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_fwd_1x1() {
  return std::make_unique<GemmFwd1x1>();
}

}  // namespace anydnn::cuda
