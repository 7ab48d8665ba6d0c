// ImplicitGemmShiftedFwd: forward 2-D convolution of packed NCHW fp32 tensors as a GEMM whose
// B rows are contiguous runs (kernels/shifted_gemm.hpp) of the padded, phase-split copy x̂ of
// x (shifted_input.hpp): im2col row (c, r, s) is x̂ shifted by koff(c, r, s), so packing is a
// plain copy. Columns with ow >= OW are computed and dropped (Wq - OW of each Wq: 2 of 58
// for a 56x56 3x3 layer). Pays where packing is the cost: few output channels (M) on large
// feature maps. Takes a fused epilogue (conv_epilogue.hpp) on each block once it is final.
#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/conv/shifted_input.hpp"
#include "backend/cpu/kernels/scratch.hpp"
#include "backend/cpu/kernels/shifted_gemm.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

namespace {

struct ShiftedPlan {
  GemmShape shape;
  ShiftedInput in;
  WeightsA weights;
  ShiftedGemmPlan gemm;

  ShiftedPlan(const ExecutionContext& ctx, const ConvProblem& p)
      : shape(p),
        in(p),
        weights(static_cast<long>(p.out_channels()), static_cast<long>(shape.rows)),
        gemm(ctx.config.cpu_isa, static_cast<long>(shape.k_per_group),
             static_cast<long>(shape.rows), in.columns(), static_cast<long>(p.batch()),
             ctx.config.num_threads) {}

  size_t workspace_bytes() const {
    return (in.xhat_floats + weights.buffer_floats()) * sizeof(float) +
           scratch_bytes(gemm.thread_floats(), gemm.threads());
  }
};

class ImplicitGemmShiftedFwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ImplicitGemmShiftedFwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
    ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
    ANYDNN_REJECT_IF(p.spatial_dims() != 2, "2-D only");
    return gemm_problem_support(p, kCblas);
  }
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return cpu_epilogue_support(p, needs);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return ShiftedPlan(ctx, p).workspace_bytes();
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    auto plan = std::make_shared<const ShiftedPlan>(ctx, p);
    return [p, plan, isa = ctx.config.cpu_isa](const ConvBuffers& buf) {
      const ShiftedPlan& q = *plan;
      const GemmShape& s = q.shape;
      const float* x = static_cast<const float*>(buf.x);
      const float* w = static_cast<const float*>(buf.w);
      float* y = static_cast<float*>(buf.y);
      const CpuEpilogue ep(buf.epilogue, isa, y);
      float* xhat = scratch_share(buf.workspace, 0, 0);
      float* wcopy = xhat + q.in.xhat_floats;
      float* gemm_scratch = wcopy + q.weights.buffer_floats();
      const long channels = static_cast<long>(p.in_channels());
      const long batch = static_cast<long>(p.batch());
#pragma omp parallel num_threads(q.gemm.threads())
      {
        const int t = omp_get_thread_num();
        if (q.in.copy) {
#pragma omp for schedule(static)
          for (long nc = 0; nc < batch * channels; ++nc)
            q.in.fill(x, nc / channels, nc % channels, channels, xhat);
        }
        float* scratch = scratch_share(gemm_scratch, q.gemm.thread_floats(), t);
        const float* a = q.weights.prepare(w, wcopy);
        const long lda = q.weights.lda;
        CpuEpilogue::GemmHook hook{};
        for (size_t g = 0; g < s.groups; ++g) {
          ShiftedB b;
          b.src =
              (q.in.copy ? xhat : x) + static_cast<long>(g * s.c_per_group) * q.in.channel_floats;
          b.image_stride = q.in.image_floats;
          b.images = batch;
          b.cols = q.in.columns();
          b.koff = q.in.koff.data();
          b.rows = static_cast<long>(q.in.koff.size());
          ShiftedC c;
          c.dst = y + static_cast<long>(g * s.k_per_group * s.pixels);
          c.image_stride = static_cast<long>(s.y_image);
          c.row_stride = static_cast<long>(s.pixels);
          c.grid_w = q.in.Wq;
          c.out_w = q.in.OW;
          q.gemm.run(t, a + static_cast<long>(g * s.k_per_group) * lda, lda, b, c, scratch,
                     ep.gemm_hook(hook, static_cast<long>(g * s.k_per_group)));
        }
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_shifted_fwd() {
  return std::make_unique<ImplicitGemmShiftedFwd>();
}

}  // namespace anydnn::cpu
