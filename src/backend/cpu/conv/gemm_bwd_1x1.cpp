// GemmBwd1x1_stride1: backward data of a 1x1 convolution (stride 1, no padding) on packed
// NCHW / NCDHW: dX_{n,g} [C/G x P] = W_g^T x dY_{n,g} [K/G x P], no col2im. The GEMM is split by
// columns over the threads; 16-bit tensors are staged in fp32.
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class GemmBwd1x1 final : public GemmBwd1x1Spec {
 public:
  GemmBwd1x1() : GemmBwd1x1Spec(kCblas) {}
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    return staging_floats(p) * sizeof(float);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const int threads = ctx.config.num_threads;
    return [p, threads](const ConvBuffers& b) {
      const GemmShape s(p);
      dispatch_float_type(p.data_type(), [&](auto tag) {
        run_staged<decltype(tag)>(
            p, b, static_cast<float*>(b.workspace), threads,
            [&](const FloatTensors& f, int t, int nt) {
              for (size_t n = 0; n < p.batch(); ++n)
                for (size_t g = 0; g < s.groups; ++g)
                  sgemm_column_share(
                      t, nt, /*a_trans=*/true, false, static_cast<int>(s.c_per_group),
                      static_cast<int>(s.pixels), static_cast<int>(s.k_per_group), 1.0f,
                      f.w + g * s.k_per_group * s.c_per_group, static_cast<int>(s.c_per_group),
                      f.y + n * s.y_image + g * s.k_per_group * s.pixels,
                      static_cast<int>(s.pixels), 0.0f,
                      f.out + n * s.x_image + g * s.c_per_group * s.pixels,
                      static_cast<int>(s.pixels));
            });
      });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_bwd_1x1() {
  return std::make_unique<GemmBwd1x1>();
}

}  // namespace anydnn::cpu
