// GemmBwdRest (CUDA): backward data as cuBLAS GEMM + col2im, for packed NCHW / NCDHW tensors of
// any filter, stride, dilation, padding and group count. Per image: one strided-batched GEMM
// over the groups, col_g [rows x P] = W_g^T [rows x K/G] x dY_{n,g} [K/G x P] into an fp32
// workspace, then col2im gathers each dx element's contributions (no atomics: deterministic)
// and writes it, so dx needs no zeroing.
#include <memory>

#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/conv/im2col.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "conv/solver_specs.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

class GemmBwdRest final : public GemmBwdRestSpec {
 public:
  GemmBwdRest() : GemmBwdRestSpec(kCublas) {}
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    const GemmShape s(p);
    return s.groups * s.rows * s.pixels * sizeof(float);
  }
  // Per image: the grouped GEMM into the fp32 column matrix, then col2im.
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const DeviceRates& r = backend_of(ctx).rates();
    const GemmShape s(p);
    const double e = static_cast<double>(data_type_size(p.data_type()));
    const double col = static_cast<double>(s.groups * s.rows * s.pixels);
    const double gemm = cublas_gemm_ms(r, gemm_math(p.data_type(), ctx.config.conv_allow_tf32),
                                       s.rows, s.pixels, s.k_per_group, s.groups, e, 4.0);
    const double col2im = column_pass_ms(r, kCol2imFactor, s.x_image, e, col, 4.0);
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32,
                         static_cast<double>(p.batch()) * (gemm + col2im + kImageLoopMs));
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const ConvGeom g = conv_geom(p);
    const GemmShape s(p);
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    const size_t elem = data_type_size(t);
    const long long batch = static_cast<long long>(p.batch());
    return [be, math, g, s, t, elem, batch](const ConvBuffers& b) {
      auto* dx = static_cast<char*>(b.x);
      const auto* dy = static_cast<const char*>(b.y);
      float* col = static_cast<float*>(b.workspace);
      const long long rows = static_cast<long long>(s.rows);
      const long long pixels = static_cast<long long>(s.pixels);
      const long long kpg = static_cast<long long>(s.k_per_group);
      for (long long n = 0; n < batch; ++n) {
        gemm_rm(be->cublas(), /*a_trans=*/true, false, static_cast<int>(rows),
                static_cast<int>(pixels), static_cast<int>(kpg),
                GemmOperand{b.w, t, rows, kpg * rows},
                GemmOperand{dy + n * s.y_image * elem, t, pixels, kpg * pixels}, 0.0f, col,
                miopenFloat, pixels, rows * pixels, static_cast<int>(s.groups), math);
        col2im(g, t, col, dx + n * s.x_image * elem, be->cuda_stream());
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_bwd_rest() {
  return std::make_unique<GemmBwdRest>();
}

}  // namespace anydnn::cuda
