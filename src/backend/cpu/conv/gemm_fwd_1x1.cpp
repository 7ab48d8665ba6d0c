// GemmFwd1x1_0_1: forward 1x1 convolution (stride 1, no padding) on packed NCHW / NCDHW:
// Y_{n,g} [K/G x P] = W_g [K/G x C/G] x X_{n,g} [C/G x P], no im2col. The GEMM is split by
// columns over the threads; 16-bit tensors are staged in fp32. A fused epilogue
// (conv_epilogue.hpp) runs on each column chunk of a thread's share right after its GEMM (on the
// fp32 staging of a 16-bit output, before it is narrowed).
#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/gemm_util.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class GemmFwd1x1 final : public GemmFwd1x1Spec {
 public:
  GemmFwd1x1() : GemmFwd1x1Spec(kCblas) {}
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return cpu_epilogue_support(p, needs);
  }
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    return staging_floats(p) * sizeof(float);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const int threads = ctx.config.num_threads;
    return [p, threads, isa = ctx.config.cpu_isa](const ConvBuffers& b) {
      const GemmShape s(p);
      dispatch_float_type(p.data_type(), [&](auto tag) {
        run_staged<decltype(tag)>(
            p, b, static_cast<float*>(b.workspace), threads,
            [&](const FloatTensors& f, int t, int nt) {
              // On the fp32 output as computed: the caller's y, or its staging copy.
              const CpuEpilogue ep(b.epilogue, isa, f.out);
              CpuEpilogue::GemmHook hook{};
              for (size_t n = 0; n < p.batch(); ++n)
                for (size_t g = 0; g < s.groups; ++g)
                  sgemm_column_share(t, nt, false, false, static_cast<int>(s.k_per_group),
                                     static_cast<int>(s.pixels), static_cast<int>(s.c_per_group),
                                     1.0f, f.w + g * s.k_per_group * s.c_per_group,
                                     static_cast<int>(s.c_per_group),
                                     f.x + n * s.x_image + g * s.c_per_group * s.pixels,
                                     static_cast<int>(s.pixels), 0.0f,
                                     f.out + n * s.y_image + g * s.k_per_group * s.pixels,
                                     static_cast<int>(s.pixels),
                                     ep.gemm_hook(hook, static_cast<long>(g * s.k_per_group)));
            });
      });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_fwd_1x1() {
  return std::make_unique<GemmFwd1x1>();
}

}  // namespace anydnn::cpu
