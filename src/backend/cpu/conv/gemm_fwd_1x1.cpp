// GemmFwd1x1_0_1: forward 1x1 convolution (stride 1, no padding) on packed NCHW / NCDHW:
// Y_{n,g} [K/G x P] = W_g [K/G x C/G] x X_{n,g} [C/G x P], no im2col. The GEMM is split by
// columns over the threads; 16-bit tensors are staged in fp32.
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void gemm_fwd_1x1(const ConvProblem& p, const ConvBuffers& b, int threads) {
  const GemmShape s(p);
  const size_t n_count = p.batch();
  const size_t x_count = n_count * s.x_image, w_count = p.out_channels() * s.rows,
               y_count = n_count * s.y_image;
  float* ws = static_cast<float*>(b.workspace);
  float* x_scratch = ws;
  float* w_scratch = x_scratch + staging_floats(p.data_type(), x_count);
  float* y_scratch = w_scratch + staging_floats(p.data_type(), w_count);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const float* x = widen_in_region<T>(b.x, x_count, x_scratch);
    const float* w = widen_in_region<T>(b.w, w_count, w_scratch);
    float* y = std::is_same_v<T, float> ? static_cast<float*>(b.y) : y_scratch;
    for (size_t n = 0; n < n_count; ++n) {
      for (size_t g = 0; g < s.groups; ++g) {
        sgemm_column_share(
            t, nt, false, false, static_cast<int>(s.k_per_group), static_cast<int>(s.pixels),
            static_cast<int>(s.c_per_group), 1.0f, w + g * s.k_per_group * s.c_per_group,
            static_cast<int>(s.c_per_group), x + n * s.x_image + g * s.c_per_group * s.pixels,
            static_cast<int>(s.pixels), 0.0f, y + n * s.y_image + g * s.k_per_group * s.pixels,
            static_cast<int>(s.pixels));
      }
    }
#pragma omp barrier
    narrow_in_region<T>(y, b.y, y_count);
  }
}

class GemmFwd1x1 final : public ConvSolver {
 public:
  std::string_view name() const override { return "GemmFwd1x1_0_1"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
    return gemm_1x1_support(p);
  }
  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    const GemmShape s(p);
    return (staging_floats(p.data_type(), p.batch() * (s.x_image + s.y_image)) +
            staging_floats(p.data_type(), p.out_channels() * s.rows)) *
           sizeof(float);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const int threads = ctx.config.num_threads;
    return [p, threads](const ConvBuffers& b) {
      dispatch_float_type(p.data_type(),
                          [&](auto tag) { gemm_fwd_1x1<decltype(tag)>(p, b, threads); });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_fwd_1x1() {
  return std::make_unique<GemmFwd1x1>();
}

}  // namespace anydnn::cpu
