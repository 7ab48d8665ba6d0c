// GemmFwd1x1Nhwc: forward 1x1 convolution (stride 1, no padding) on packed NHWC / NDHWC as one
// cuBLAS GEMM over every image: Y [N*H*W x K] = X [N*H*W x C] x W^T, W being [K x C]. No
// workspace, no staging; cuBLAS picks its kernel per shape (Hopper's persistent GEMMs), which the
// implicit-GEMM convolutions' one-tile-per-block kernels trail on large 1x1 layers.
#include <memory>

#include "backend/cuda/conv/gemm_1x1_nhwc.hpp"
#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "core/data_type.hpp"

namespace anydnn::cuda {

namespace {

class GemmFwd1x1Nhwc final : public ConvSolver {
 public:
  std::string_view name() const override { return "GemmFwd1x1Nhwc"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "forward only");
    return gemm_1x1_nhwc_support(p);
  }
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const Nhwc1x1Shape s(p);
    const double e = static_cast<double>(data_type_size(p.data_type()));
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32,
                         cublas_gemm_ms(backend_of(ctx).rates(),
                                        gemm_math(p.data_type(), ctx.config.conv_allow_tf32),
                                        s.rows, s.k, s.c, 1, e, e));
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const Nhwc1x1Shape s(p);
    const miopenDataType_t t = p.data_type();
    const GemmMath math = gemm_math(t, ctx.config.conv_allow_tf32);
    return [be, s, t, math](const ConvBuffers& b) {
      gemm_rm(be->cublas(), false, true, static_cast<int>(s.rows), static_cast<int>(s.k),
              static_cast<int>(s.c), GemmOperand{b.x, t, s.c, 0}, GemmOperand{b.w, t, s.c, 0}, 0.0f,
              b.y, t, s.k, 0, 1, math);
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_fwd_1x1_nhwc() {
  return std::make_unique<GemmFwd1x1Nhwc>();
}

}  // namespace anydnn::cuda
