// GemmWrw1x1_stride1 (CUDA): backward weights of a 1x1 convolution (stride 1, no padding) on
// packed NCHW / NCDHW, straight to cuBLAS without im2col. dW [K x C] = sum over images n of
// dY_n [K x P] x X_n^T [P x C]. In NCHW an image's pixels are contiguous but the images are not
// one matrix, so the sum over n cannot be one GEMM's reduction:
// - one group: the images go `slices` at a time into one strided-batched GEMM, image n adding
//   into fp32 partial n % slices in the workspace (slices images run in parallel, not one small
//   GEMM after another), then one pass sums the partials in slice order into dW's type;
// - groups: per image, one GEMM batched over the groups accumulating into dW in place (fp32) or
//   into an fp32 workspace copy (16-bit), rounded once at the end.
// Images and slices in a fixed order: deterministic.
#include <algorithm>
#include <memory>

#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "conv/solver_specs.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

// The partial dW's of the one-group path stay within this many bytes (workspace); fewer slices
// where dW is large, where each image's GEMM is big enough to fill the device anyway.
constexpr double kPartialBytes = 64.0 * 1024 * 1024;

// Partial slices of the one-group path (0: the per-image path of grouped problems).
long long slices_of(const ConvProblem& p, const GemmShape& s) {
  if (s.groups != 1) return 0;
  const double dw_bytes = static_cast<double>(s.k_per_group * s.c_per_group) * 4.0;
  const long long fit = static_cast<long long>(kPartialBytes / std::max(dw_bytes, 1.0));
  return std::max(1LL, std::min(static_cast<long long>(p.batch()), fit));
}

class GemmWrw1x1 final : public GemmWrw1x1Spec {
 public:
  GemmWrw1x1() : GemmWrw1x1Spec(kCublas) {}
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    const GemmShape s(p);
    const size_t dw = p.out_channels() * s.c_per_group * sizeof(float);
    if (const long long slices = slices_of(p, s); slices > 0)
      return static_cast<size_t>(slices) * dw;
    return p.data_type() == miopenFloat ? 0 : dw;
  }
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const DeviceRates& r = backend_of(ctx).rates();
    const GemmShape s(p);
    const double e = static_cast<double>(data_type_size(p.data_type()));
    const double dw = static_cast<double>(p.out_channels() * s.c_per_group);
    const GemmMath math = gemm_math(p.data_type(), ctx.config.conv_allow_tf32);
    const double n = static_cast<double>(p.batch());
    double ms = 0;
    if (const long long slices = slices_of(p, s); slices > 0) {
      // ceil(N / slices) batched GEMMs, then the sum of the partials.
      const double calls = std::ceil(n / static_cast<double>(slices));
      ms = calls * (cublas_gemm_ms(r, math, s.k_per_group, s.c_per_group, s.pixels,
                                   static_cast<double>(slices), e, 8.0) +
                    kImageLoopMs) +
           memory_ms(r, dw * (4.0 * static_cast<double>(slices) + e));
    } else {
      // Per image: the grouped GEMM accumulating into fp32 dW; 16-bit types round at the end.
      ms = n * (cublas_gemm_ms(r, math, s.k_per_group, s.c_per_group, s.pixels, s.groups, e, 8.0) +
                kImageLoopMs) +
           (p.data_type() == miopenFloat ? 0.0 : memory_ms(r, dw * (4.0 + e)));
    }
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32, ms);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const GemmShape s(p);
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    const size_t elem = data_type_size(t);
    const long long batch = static_cast<long long>(p.batch());
    const size_t dw_count = p.out_channels() * s.c_per_group;
    const long long slices = slices_of(p, s);
    return [be, math, s, t, elem, batch, dw_count, slices](const ConvBuffers& b) {
      const auto* x = static_cast<const char*>(b.x);
      const auto* dy = static_cast<const char*>(b.y);
      const long long cpg = static_cast<long long>(s.c_per_group);
      const long long kpg = static_cast<long long>(s.k_per_group);
      const long long pixels = static_cast<long long>(s.pixels);
      const auto x_image = static_cast<long long>(s.x_image);
      const auto y_image = static_cast<long long>(s.y_image);
      if (slices > 0) {
        auto* partials = static_cast<float*>(b.workspace);
        for (long long n0 = 0; n0 < batch; n0 += slices) {
          const long long count = std::min(slices, batch - n0);
          gemm_rm(be->cublas(), false, /*b_trans=*/true, static_cast<int>(kpg),
                  static_cast<int>(cpg), static_cast<int>(pixels),
                  GemmOperand{dy + n0 * y_image * static_cast<long long>(elem), t, pixels, y_image},
                  GemmOperand{x + n0 * x_image * static_cast<long long>(elem), t, pixels, x_image},
                  n0 == 0 ? 0.0f : 1.0f, partials, miopenFloat, cpg, kpg * cpg,
                  static_cast<int>(count), math);
        }
        sum_float_slices(partials, dw_count, dw_count, static_cast<int>(std::min(slices, batch)), t,
                         b.w, be->cuda_stream());
        return;
      }
      void* acc = t == miopenFloat ? b.w : b.workspace;
      for (long long n = 0; n < batch; ++n) {
        gemm_rm(
            be->cublas(), false, /*b_trans=*/true, static_cast<int>(kpg), static_cast<int>(cpg),
            static_cast<int>(pixels),
            GemmOperand{dy + n * y_image * static_cast<long long>(elem), t, pixels, kpg * pixels},
            GemmOperand{x + n * x_image * static_cast<long long>(elem), t, pixels, cpg * pixels},
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
