// GemmBwd1x1_stride1: backward data of a 1x1 convolution (stride 1, no padding) on packed
// NCHW / NCDHW: dX_{n,g} [C/G x P] = W_g^T x dY_{n,g} [K/G x P], no col2im. The GEMM is split by
// columns over the threads; 16-bit tensors are staged in fp32.
#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void gemm_bwd_1x1(const ConvProblem& p, const ConvBuffers& b, int threads) {
  const GemmShape s(p);
  const size_t n_count = p.batch();
  const size_t x_count = n_count * s.x_image, w_count = p.out_channels() * s.rows,
               y_count = n_count * s.y_image;
  float* ws = static_cast<float*>(b.workspace);
  float* dy_scratch = ws;
  float* w_scratch = dy_scratch + staging_floats(p.data_type(), y_count);
  float* dx_scratch = w_scratch + staging_floats(p.data_type(), w_count);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const float* dy = widen_in_region<T>(b.y, y_count, dy_scratch);
    const float* w = widen_in_region<T>(b.w, w_count, w_scratch);
    float* dx = std::is_same_v<T, float> ? static_cast<float*>(b.x) : dx_scratch;
    for (size_t n = 0; n < n_count; ++n) {
      for (size_t g = 0; g < s.groups; ++g) {
        sgemm_column_share(
            t, nt, /*a_trans=*/true, false, static_cast<int>(s.c_per_group),
            static_cast<int>(s.pixels), static_cast<int>(s.k_per_group), 1.0f,
            w + g * s.k_per_group * s.c_per_group, static_cast<int>(s.c_per_group),
            dy + n * s.y_image + g * s.k_per_group * s.pixels, static_cast<int>(s.pixels), 0.0f,
            dx + n * s.x_image + g * s.c_per_group * s.pixels, static_cast<int>(s.pixels));
      }
    }
#pragma omp barrier
    narrow_in_region<T>(dx, b.x, x_count);
  }
}

class GemmBwd1x1 final : public ConvSolver {
 public:
  std::string_view name() const override { return "GemmBwd1x1_stride1"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoGEMM; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardData, "not a backward-data problem");
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
                          [&](auto tag) { gemm_bwd_1x1<decltype(tag)>(p, b, threads); });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_gemm_bwd_1x1() {
  return std::make_unique<GemmBwd1x1>();
}

}  // namespace anydnn::cpu
