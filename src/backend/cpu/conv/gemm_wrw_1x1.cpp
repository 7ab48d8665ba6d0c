// GemmWrw1x1_stride1: backward weights of a 1x1 convolution (stride 1, no padding) on packed
// NCHW / NCDHW: dW_g [K/G x C/G] = sum_n dY_{n,g} [K/G x P] x X_{n,g}^T, no im2col, summed over
// the batch in a fixed order. The GEMM is split by dW's columns over the threads; 16-bit
// tensors are staged in fp32 and dW accumulates in fp32.
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void gemm_wrw_1x1(const ConvProblem& p, const ConvBuffers& b, int threads) {
  const GemmShape s(p);
  const size_t n_count = p.batch();
  const size_t x_count = n_count * s.x_image, w_count = p.out_channels() * s.rows,
               y_count = n_count * s.y_image;
  float* ws = static_cast<float*>(b.workspace);
  float* x_scratch = ws;
  float* dy_scratch = x_scratch + staging_floats(p.data_type(), x_count);
  float* dw_scratch = dy_scratch + staging_floats(p.data_type(), y_count);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const float* x = widen_in_region<T>(b.x, x_count, x_scratch);
    const float* dy = widen_in_region<T>(b.y, y_count, dy_scratch);
    float* dw = std::is_same_v<T, float> ? static_cast<float*>(b.w) : dw_scratch;
    for (size_t n = 0; n < n_count; ++n) {
      for (size_t g = 0; g < s.groups; ++g) {
        sgemm_column_share(t, nt, false, /*b_trans=*/true, static_cast<int>(s.k_per_group),
                           static_cast<int>(s.c_per_group), static_cast<int>(s.pixels), 1.0f,
                           dy + n * s.y_image + g * s.k_per_group * s.pixels,
                           static_cast<int>(s.pixels),
                           x + n * s.x_image + g * s.c_per_group * s.pixels,
                           static_cast<int>(s.pixels), n == 0 ? 0.0f : 1.0f,
                           dw + g * s.k_per_group * s.c_per_group, static_cast<int>(s.c_per_group));
      }
    }
#pragma omp barrier
    narrow_in_region<T>(dw, b.w, w_count);
  }
}

class GemmWrw1x1 final : public ConvSolver {
 public:
  std::string_view name() const override { return "GemmWrw1x1_stride1"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardWeights,
                     "not a backward-weights problem");
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
                          [&](auto tag) { gemm_wrw_1x1<decltype(tag)>(p, b, threads); });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_wrw_1x1() {
  return std::make_unique<GemmWrw1x1>();
}

}  // namespace anydnn::cpu
