// ImplicitGemmChannelFwd: forward convolution of packed NCHW / NCDHW fp32 tensors as an
// implicit GEMM with the vector lanes along the output channels (kernels/channel_gemm.hpp):
//   Y_g^T [N*P x K/G] = im2col(X_g)^T [N*P x C/G*taps] * W_g^T [C/G*taps x K/G]
// W_g^T is packed once per call; im2col blocks are packed as micro-panels of pixels. No lane is
// ever idle when K/G is a multiple of the vector width, so it pays on small feature maps (7x7,
// 14x14) where pixel-lane tiles (ImplicitGemmFwd) run ragged. Any filter, stride, dilation,
// padding and group count. Takes a fused epilogue (conv_epilogue.hpp) on each run of channels
// as it is transposed into y.
#include <omp.h>

#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/kernels/channel_gemm.hpp"
#include "backend/cpu/kernels/scratch.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

namespace {

struct ChannelPlan {
  GemmShape shape;
  ChannelGemmPlan gemm;
  std::vector<GemmTap> taps;
  size_t weight_floats = 0;  // all groups

  ChannelPlan(const ExecutionContext& ctx, const ConvProblem& p)
      : shape(p),
        gemm(ctx.config.cpu_isa, static_cast<long>(shape.k_per_group),
             static_cast<long>(shape.rows), static_cast<long>(p.batch() * shape.pixels),
             ctx.config.num_threads),
        taps(forward_taps(static_cast<long>(shape.c_per_group), p.filter_size(), p.pads(),
                          p.dilations())) {
    weight_floats = (shape.groups * gemm.weight_floats() + 15) / 16 * 16;
  }
  size_t workspace_bytes() const {
    return weight_floats * sizeof(float) + scratch_bytes(gemm.thread_floats(), gemm.threads());
  }
};

class ImplicitGemmChannelFwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ImplicitGemmChannelFwd"; }
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
    return ChannelPlan(ctx, p).workspace_bytes();
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    auto plan = std::make_shared<const ChannelPlan>(ctx, p);
    return [p, plan, isa = ctx.config.cpu_isa](const ConvBuffers& buf) {
      const ChannelPlan& q = *plan;
      const GemmShape& s = q.shape;
      const auto& in = p.in_size();
      const auto& out = p.out_size();
      const long in_pixels = static_cast<long>(in[0] * in[1] * in[2]);
      const float* x = static_cast<const float*>(buf.x);
      const float* w = static_cast<const float*>(buf.w);
      float* y = static_cast<float*>(buf.y);
      const CpuEpilogue ep(buf.epilogue, isa, y);
      float* panels = scratch_share(buf.workspace, 0, 0);
      float* thread_area = panels + q.weight_floats;
      const long group_panels = static_cast<long>(q.gemm.weight_floats());
#pragma omp parallel num_threads(q.gemm.threads())
      {
        const int t = omp_get_thread_num();
        for (size_t g = 0; g < s.groups; ++g)
          q.gemm.pack_weights_from_rows(w + static_cast<long>(g * s.k_per_group * s.rows),
                                        static_cast<long>(s.rows), panels + g * group_panels, t);
#pragma omp barrier
        float* scratch = scratch_share(thread_area, q.gemm.thread_floats(), t);
        CpuEpilogue::GemmHook hook{};
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
          b.taps = q.taps.data();
          b.rows = static_cast<long>(q.taps.size());
          StridedC c;
          c.dst = y + static_cast<long>(g * s.k_per_group * s.pixels);
          c.image_stride = static_cast<long>(s.y_image);
          c.row_stride = static_cast<long>(s.pixels);
          c.dims = b.grid;
          q.gemm.run(t, panels + g * group_panels, b, c, scratch,
                     ep.gemm_hook(hook, static_cast<long>(g * s.k_per_group)));
        }
      }
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_channel_fwd() {
  return std::make_unique<ImplicitGemmChannelFwd>();
}

}  // namespace anydnn::cpu
