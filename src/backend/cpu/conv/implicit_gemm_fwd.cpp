// ImplicitGemmFwd: forward convolution of packed NCHW / NCDHW fp32 tensors as an implicit GEMM
// (kernels/conv_gemm.hpp): Y_g [K/G x N*P] = W_g [K/G x C/G*taps] * im2col(X_g), where the
// im2col matrix is never stored: its blocks are packed from x straight into cache-sized panels
// and multiplied by the register-blocked tiles of the configured instruction set. Columns run
// across image boundaries, so small feature maps (7x7) still fill whole tiles. Any filter,
// stride, dilation, padding and group count. Takes a fused epilogue (conv_epilogue.hpp) on each
// block of rows once its last k block is summed.
#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/kernels/conv_gemm.hpp"
#include "backend/cpu/kernels/scratch.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

namespace {

struct FwdPlan {
  GemmShape shape;
  WeightsA weights;
  ConvGemmPlan gemm;
  FwdPlan(const ExecutionContext& ctx, const ConvProblem& p)
      : shape(p),
        weights(static_cast<long>(p.out_channels()), static_cast<long>(shape.rows)),
        gemm(ctx.config.cpu_isa, static_cast<long>(shape.k_per_group),
             static_cast<long>(shape.rows), static_cast<long>(p.batch() * shape.pixels),
             ctx.config.num_threads) {}
};

class ImplicitGemmFwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ImplicitGemmFwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
    ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
    return gemm_problem_support(p, kCblas);
  }
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return cpu_epilogue_support(p, needs);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const FwdPlan plan(ctx, p);
    return plan.weights.buffer_floats() * sizeof(float) +
           scratch_bytes(plan.gemm.thread_floats(), plan.gemm.threads());
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    auto plan = std::make_shared<const FwdPlan>(ctx, p);
    auto taps = std::make_shared<const std::vector<GemmTap>>(forward_taps(
        static_cast<long>(plan->shape.c_per_group), p.filter_size(), p.pads(), p.dilations()));
    return [p, plan, taps, isa = ctx.config.cpu_isa](const ConvBuffers& buf) {
      const GemmShape& s = plan->shape;
      const auto& in = p.in_size();
      const auto& out = p.out_size();
      const long in_pixels = static_cast<long>(in[0] * in[1] * in[2]);
      const float* x = static_cast<const float*>(buf.x);
      const float* w = static_cast<const float*>(buf.w);
      float* y = static_cast<float*>(buf.y);
      const CpuEpilogue ep(buf.epilogue, isa, y);
#pragma omp parallel num_threads(plan->gemm.threads())
      {
        const int t = omp_get_thread_num();
        CpuEpilogue::GemmHook hook{};
        float* wcopy = scratch_share(buf.workspace, 0, 0);
        float* scratch =
            scratch_share(wcopy + plan->weights.buffer_floats(), plan->gemm.thread_floats(), t);
        const float* a = plan->weights.prepare(w, wcopy);
        const long lda = plan->weights.lda;
        for (size_t g = 0; g < s.groups; ++g) {
          ImplicitB b;
          b.src = x + static_cast<long>(g * s.c_per_group) * in_pixels;
          b.image_stride = static_cast<long>(s.x_image);
          b.channel_stride = in_pixels;
          b.dims = {static_cast<long>(in[0]), static_cast<long>(in[1]), static_cast<long>(in[2])};
          b.grid = {static_cast<long>(out[0]), static_cast<long>(out[1]),
                    static_cast<long>(out[2])};
          b.steps = p.strides();
          b.images = static_cast<long>(p.batch());
          b.taps = taps->data();
          b.rows = static_cast<long>(taps->size());
          StridedC c;
          c.dst = y + static_cast<long>(g * s.k_per_group * s.pixels);
          c.image_stride = static_cast<long>(s.y_image);
          c.row_stride = static_cast<long>(s.pixels);
          c.dims = b.grid;
          plan->gemm.run(t, a + static_cast<long>(g * s.k_per_group) * lda, lda, b, c, scratch,
                         false, ep.gemm_hook(hook, static_cast<long>(g * s.k_per_group)));
        }
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_fwd() {
  return std::make_unique<ImplicitGemmFwd>();
}

}  // namespace anydnn::cpu
