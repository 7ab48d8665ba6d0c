// GemmWrwUniversal (CUDA): backward weights as im2col + cuBLAS GEMM, for packed NCHW / NCDHW
// tensors of any filter, stride, dilation, padding and group count. Per image: im2col of the
// image, then one strided-batched GEMM over the groups accumulating
// dW_g [K/G x rows] += dY_{n,g} [K/G x P] x col_g^T [P x rows] (beta = 0 for the first image).
// The images are summed in a fixed order (deterministic). fp32 dW accumulates in place;
// half/bfloat16 dW in an fp32 workspace buffer, rounded into dw once at the end.
#include <memory>

#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/conv/im2col.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "conv/solver_specs.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

// Workspace: [fp32 dW accumulator, 16-bit types only, 256-byte aligned][column matrix].
struct Layout {
  size_t accumulator_bytes, column_bytes;
  explicit Layout(const ConvProblem& p) {
    const GemmShape s(p);
    accumulator_bytes =
        p.data_type() == miopenFloat ? 0 : aligned_bytes(miopenFloat, p.out_channels() * s.rows);
    column_bytes = s.groups * s.rows * s.pixels * data_type_size(p.data_type());
  }
  size_t total() const { return accumulator_bytes + column_bytes; }
};

class GemmWrwUniversal final : public GemmWrwUniversalSpec {
 public:
  GemmWrwUniversal() : GemmWrwUniversalSpec(kCublas) {}
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    return Layout(p).total();
  }
  // Per image: im2col, then the grouped GEMM accumulating into fp32 dW; 16-bit types round dW
  // once at the end.
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const DeviceRates& r = backend_of(ctx).rates();
    const GemmShape s(p);
    const double e = static_cast<double>(data_type_size(p.data_type()));
    const double col = static_cast<double>(s.groups * s.rows * s.pixels);
    const double dw = static_cast<double>(p.out_channels() * s.rows);
    const double gemm = cublas_gemm_ms(r, gemm_math(p.data_type(), ctx.config.conv_allow_tf32),
                                       s.k_per_group, s.rows, s.pixels, s.groups, e, 8.0);
    const double im2col = column_pass_ms(r, kIm2colFactor, s.x_image, e, col, e);
    const double round = p.data_type() == miopenFloat ? 0.0 : memory_ms(r, dw * (4.0 + e));
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32,
                         static_cast<double>(p.batch()) * (im2col + gemm + kImageLoopMs) + round);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const ConvGeom g = conv_geom(p);
    const GemmShape s(p);
    const Layout layout(p);
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    const size_t elem = data_type_size(t);
    const long long batch = static_cast<long long>(p.batch());
    const size_t dw_count = p.out_channels() * s.rows;
    return [be, math, g, s, layout, t, elem, batch, dw_count](const ConvBuffers& b) {
      const auto* x = static_cast<const char*>(b.x);
      const auto* dy = static_cast<const char*>(b.y);
      char* ws = static_cast<char*>(b.workspace);
      void* acc = t == miopenFloat ? b.w : ws;
      void* col = ws + layout.accumulator_bytes;
      const long long rows = static_cast<long long>(s.rows);
      const long long pixels = static_cast<long long>(s.pixels);
      const long long kpg = static_cast<long long>(s.k_per_group);
      for (long long n = 0; n < batch; ++n) {
        im2col(g, t, x + n * s.x_image * elem, col, be->cuda_stream());
        gemm_rm(be->cublas(), false, /*b_trans=*/true, static_cast<int>(kpg),
                static_cast<int>(rows), static_cast<int>(pixels),
                GemmOperand{dy + n * s.y_image * elem, t, pixels, kpg * pixels},
                GemmOperand{col, t, pixels, rows * pixels}, n == 0 ? 0.0f : 1.0f, acc, miopenFloat,
                rows, kpg * rows, static_cast<int>(s.groups), math);
      }
      if (t != miopenFloat)
        store_from_float(t, static_cast<const float*>(acc), b.w, dw_count, be->cuda_stream());
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_wrw_universal() {
  return std::make_unique<GemmWrwUniversal>();
}

}  // namespace anydnn::cuda
