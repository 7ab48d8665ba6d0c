// GemmWrw1x1_stride1: backward weights of a 1x1 convolution (stride 1, no padding) on packed
// NCHW / NCDHW: dW_g [K/G x C/G] = sum_n dY_{n,g} [K/G x P] x X_{n,g}^T, no im2col, summed over
// the batch in a fixed order. The GEMM is split by dW's columns over the threads; 16-bit
// tensors are staged in fp32 and dW accumulates in fp32.
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class GemmWrw1x1 final : public GemmWrw1x1Spec {
 public:
  GemmWrw1x1() : GemmWrw1x1Spec(kCblas) {}
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
                      t, nt, false, /*b_trans=*/true, static_cast<int>(s.k_per_group),
                      static_cast<int>(s.c_per_group), static_cast<int>(s.pixels), 1.0f,
                      f.y + n * s.y_image + g * s.k_per_group * s.pixels,
                      static_cast<int>(s.pixels),
                      f.x + n * s.x_image + g * s.c_per_group * s.pixels,
                      static_cast<int>(s.pixels), n == 0 ? 0.0f : 1.0f,
                      f.out + g * s.k_per_group * s.c_per_group, static_cast<int>(s.c_per_group));
            });
      });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_wrw_1x1() {
  return std::make_unique<GemmWrw1x1>();
}

}  // namespace anydnn::cpu
