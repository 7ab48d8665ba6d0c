// GemmFwdRest (CUDA): forward convolution as im2col + cuBLAS GEMM, for packed NCHW / NCDHW
// tensors of any filter, stride, dilation, padding and group count. Per image: im2col of the
// whole image into the workspace ([C * taps] x [pixels], x's type), then one strided-batched
// GEMM over the groups: Y_{n,g} [K/G x P] = W_g [K/G x rows] x col_g [rows x P], fp32
// accumulation, written straight into y. A fused chain's epilogue is one pass over y after the
// last image (conv/conv_epilogue.hpp says why: one pass of ~y's size after all images, rather
// than one small launch per image).
#include <memory>

#include "backend/cuda/conv/conv_epilogue.hpp"
#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/conv/im2col.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "conv/solver_specs.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

size_t column_bytes(const ConvProblem& p) {
  const GemmShape s(p);
  return s.groups * s.rows * s.pixels * data_type_size(p.data_type());
}

class GemmFwdRest final : public GemmFwdRestSpec {
 public:
  GemmFwdRest() : GemmFwdRestSpec(kCublas) {}
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    return column_bytes(p);
  }
  // Per image: im2col, then the grouped GEMM (the invoker's loop).
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const DeviceRates& r = backend_of(ctx).rates();
    const GemmShape s(p);
    const double e = static_cast<double>(data_type_size(p.data_type()));
    const double col = static_cast<double>(s.groups * s.rows * s.pixels);
    const double gemm = cublas_gemm_ms(r, gemm_math(p.data_type(), ctx.config.conv_allow_tf32),
                                       s.k_per_group, s.pixels, s.rows, s.groups, e, e);
    const double im2col = column_pass_ms(r, kIm2colFactor, s.x_image, e, col, e);
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32,
                         static_cast<double>(p.batch()) * (im2col + gemm + kImageLoopMs));
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const ConvGeom g = conv_geom(p);
    const GemmShape s(p);
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    const size_t elem = data_type_size(t);
    const long long batch = static_cast<long long>(p.batch());
    const size_t k_total = p.out_channels();
    return [be, math, g, s, t, elem, batch, k_total](const ConvBuffers& b) {
      const auto* x = static_cast<const char*>(b.x);
      auto* y = static_cast<char*>(b.y);
      const long long rows = static_cast<long long>(s.rows);
      const long long pixels = static_cast<long long>(s.pixels);
      const long long kpg = static_cast<long long>(s.k_per_group);
      for (long long n = 0; n < batch; ++n) {
        im2col(g, t, x + n * s.x_image * elem, b.workspace, be->cuda_stream());
        gemm_rm(be->cublas(), false, false, static_cast<int>(kpg), static_cast<int>(pixels),
                static_cast<int>(rows), GemmOperand{b.w, t, rows, kpg * rows},
                GemmOperand{b.workspace, t, pixels, rows * pixels}, 0.0f, y + n * s.y_image * elem,
                t, pixels, kpg * pixels, static_cast<int>(s.groups), math);
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

std::unique_ptr<ConvSolver> make_gemm_fwd_rest() {
  return std::make_unique<GemmFwdRest>();
}

}  // namespace anydnn::cuda
