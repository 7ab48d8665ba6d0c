#include "backend/cpu/conv/winograd_util.hpp"

#include <omp.h>

#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/kernels/scratch.hpp"

namespace anydnn::cpu {

namespace {

// The convolution as the plan sees it: "in" is read, "out" written, channels per group.
struct Orientation {
  bool backward = false;
  long in_c, out_c, in_h, in_w, out_h, out_w, in_image, out_image;
  int pad_h, pad_w;
  explicit Orientation(const ConvProblem& p) {
    backward = p.direction() == ConvDirection::BackwardData;
    const long g = static_cast<long>(p.groups());
    const long C = static_cast<long>(p.in_channels()), K = static_cast<long>(p.out_channels());
    const long H = static_cast<long>(p.in_size()[1]), W = static_cast<long>(p.in_size()[2]);
    const long OH = static_cast<long>(p.out_size()[1]), OW = static_cast<long>(p.out_size()[2]);
    if (!backward) {
      in_c = C / g, out_c = K / g, in_h = H, in_w = W, out_h = OH, out_w = OW;
      in_image = C * H * W, out_image = K * OH * OW;
      pad_h = p.pads()[1], pad_w = p.pads()[2];
    } else {
      in_c = K / g, out_c = C / g, in_h = OH, in_w = OW, out_h = H, out_w = W;
      in_image = K * OH * OW, out_image = C * H * W;
      pad_h = 2 - p.pads()[1], pad_w = 2 - p.pads()[2];
    }
  }
};

struct WinogradInvokerPlan {
  Orientation o;
  long groups;
  WinogradF4x3Plan plan;
  WinogradInvokerPlan(const ExecutionContext& ctx, const ConvProblem& p)
      : o(p),
        groups(static_cast<long>(p.groups())),
        plan(ctx.config.cpu_isa, static_cast<long>(p.batch()), o.in_c, o.out_c, o.in_h, o.in_w,
             o.out_h, o.out_w, o.pad_h, o.pad_w, o.in_image, o.out_image, ctx.config.num_threads,
             o.backward) {}
  // The transposed-A tile may read a few floats past the last U plane's last row.
  size_t u_floats() const { return (groups * plan.u_floats() + 64 + 15) / 16 * 16; }
  size_t workspace_bytes() const {
    return u_floats() * sizeof(float) + scratch_bytes(plan.thread_floats(), plan.threads());
  }
};

}  // namespace

Applicability winograd_f4x3_support(const ConvProblem& p) {
  ANYDNN_REJECT_IF(p.direction() == ConvDirection::BackwardWeights, "not for backward weights");
  ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
  ANYDNN_REJECT_IF(p.spatial_dims() != 2, "2-D only");
  ANYDNN_REJECT_IF(p.filter_size()[1] != 3 || p.filter_size()[2] != 3, "filter is not 3x3");
  ANYDNN_REJECT_IF(p.strides()[1] != 1 || p.strides()[2] != 1, "stride is not 1");
  ANYDNN_REJECT_IF(p.dilations()[1] != 1 || p.dilations()[2] != 1, "dilation is not 1");
  // Backward data pads dy by 2 - pad.
  ANYDNN_REJECT_IF(
      p.direction() == ConvDirection::BackwardData && (p.pads()[1] > 2 || p.pads()[2] > 2),
      "backward data needs padding <= 2");
  const double x =
      static_cast<double>(p.batch()) * p.in_channels() * p.in_size()[1] * p.in_size()[2];
  const double y =
      static_cast<double>(p.batch()) * p.out_channels() * p.out_size()[1] * p.out_size()[2];
  ANYDNN_REJECT_IF(x > 2.0e9 || y > 2.0e9, "tensor offsets exceed 32 bits");
  return gemm_problem_support(p, kCblas);
}

size_t winograd_f4x3_workspace(const ExecutionContext& ctx, const ConvProblem& p) {
  return WinogradInvokerPlan(ctx, p).workspace_bytes();
}

ConvInvoker winograd_f4x3_invoker(const ExecutionContext& ctx, const ConvProblem& p) {
  auto wp = std::make_shared<const WinogradInvokerPlan>(ctx, p);
  return [wp, isa = ctx.config.cpu_isa](const ConvBuffers& b) {
    const Orientation& o = wp->o;
    const WinogradF4x3Plan& plan = wp->plan;
    const float* in = static_cast<const float*>(o.backward ? b.y : b.x);
    float* out = static_cast<float*>(o.backward ? b.x : b.y);
    // A fused epilogue (forward only: epilogue_support says so) on each block of tiles.
    const CpuEpilogue ep(o.backward ? nullptr : b.epilogue, isa, out);
    const float* w = static_cast<const float*>(b.w);
    float* u = scratch_share(b.workspace, 0, 0);
    float* scratch = u + wp->u_floats();
    const long filters = o.in_c * o.out_c * 9;  // per group
    const long u_group = static_cast<long>(plan.u_floats());
    const long in_plane = o.in_h * o.in_w, out_plane = o.out_h * o.out_w;
#pragma omp parallel num_threads(plan.threads())
    {
      // Filters of every group first (split over the threads by filter row), then the tiles.
      // The weights are (K x C) per group in both directions, and U keeps that order: forward
      // as is (out x in), backward data rotated (in x out, read transposed by the GEMM).
      const long filter_rows = o.backward ? o.in_c : o.out_c;
      const long filter_cols = o.backward ? o.out_c : o.in_c;
      const long rows = wp->groups * filter_rows;
#pragma omp for schedule(static)
      for (long r = 0; r < rows; ++r) {
        const long g = r / filter_rows, k = r % filter_rows;
        winograd_f4x3_weights(plan.transforms(), w + g * filters, filter_rows, filter_cols,
                              o.backward, k, k + 1, u + g * u_group, plan.ldu());
      }
      const int t = omp_get_thread_num();
      float* mine = scratch_share(scratch, plan.thread_floats(), t);
      CpuEpilogue::GemmHook hook{};
      for (long g = 0; g < wp->groups; ++g)
        plan.run(t, in + g * o.in_c * in_plane, u + g * u_group, out + g * o.out_c * out_plane,
                 mine, ep.gemm_hook(hook, g * o.out_c));
    }
  };
}

}  // namespace anydnn::cpu
