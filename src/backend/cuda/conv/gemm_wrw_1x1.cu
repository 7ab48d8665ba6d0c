// GemmWrw1x1_stride1 (CUDA): backward weights of a 1x1 convolution (stride 1, no padding) on
// packed NCHW / NCDHW, straight to cuBLAS without im2col: per image, one GEMM batched over the
// groups accumulating dW_g [K/G x C/G] += dY_{n,g} [K/G x P] x X_{n,g}^T [P x C/G], images in a
// fixed order (deterministic). fp32 dW accumulates in place; half/bfloat16 dW in an fp32
// workspace buffer, rounded into dw once at the end.
#include <memory>

#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "conv/solver_specs.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

class GemmWrw1x1 final : public GemmWrw1x1Spec {
 public:
  GemmWrw1x1() : GemmWrw1x1Spec(kCublas) {}
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    const GemmShape s(p);
    return p.data_type() == miopenFloat ? 0 : p.out_channels() * s.c_per_group * sizeof(float);
  }
  // Per image: the grouped GEMM accumulating into fp32 dW; 16-bit types round dW at the end.
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const DeviceRates& r = backend_of(ctx).rates();
    const GemmShape s(p);
    const double e = static_cast<double>(data_type_size(p.data_type()));
    const double dw = static_cast<double>(p.out_channels() * s.c_per_group);
    const double gemm = cublas_gemm_ms(r, gemm_math(p.data_type(), ctx.config.conv_allow_tf32),
                                       s.k_per_group, s.c_per_group, s.pixels, s.groups, e, 8.0);
    const double round = p.data_type() == miopenFloat ? 0.0 : memory_ms(r, dw * (4.0 + e));
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32,
                         static_cast<double>(p.batch()) * (gemm + kImageLoopMs) + round);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const GemmShape s(p);
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    const size_t elem = data_type_size(t);
    const long long batch = static_cast<long long>(p.batch());
    const size_t dw_count = p.out_channels() * s.c_per_group;
    return [be, math, s, t, elem, batch, dw_count](const ConvBuffers& b) {
      const auto* x = static_cast<const char*>(b.x);
      const auto* dy = static_cast<const char*>(b.y);
      void* acc = t == miopenFloat ? b.w : b.workspace;
      const long long cpg = static_cast<long long>(s.c_per_group);
      const long long kpg = static_cast<long long>(s.k_per_group);
      const long long pixels = static_cast<long long>(s.pixels);
      for (long long n = 0; n < batch; ++n) {
        gemm_rm(be->cublas(), false, /*b_trans=*/true, static_cast<int>(kpg), static_cast<int>(cpg),
                static_cast<int>(pixels),
                GemmOperand{dy + n * s.y_image * elem, t, pixels, kpg * pixels},
                GemmOperand{x + n * s.x_image * elem, t, pixels, cpg * pixels},
                n == 0 ? 0.0f : 1.0f, acc, miopenFloat, cpg, kpg * cpg, static_cast<int>(s.groups),
                math);
      }
      if (t != miopenFloat)
        store_from_float(t, static_cast<const float*>(acc), b.w, dw_count, be->cuda_stream());
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_wrw_1x1() {
  return std::make_unique<GemmWrw1x1>();
}

}  // namespace anydnn::cuda
