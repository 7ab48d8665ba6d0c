// ConvDepthwiseWrw: backward weights of a depthwise convolution (depthwise_util.hpp) of packed
// NCHW tensors of any float type: dw[k][r][s] is the dot product of dy[., k] with x[., k / m]
// shifted by the tap, over every image and output row. Each output row contributes an fp32 row
// of products summed per tap, then rows are added in double (the sums run over N*OH*OW
// elements). Threads take output channels: deterministic.
#include <omp.h>

#include <memory>
#include <vector>

#include "backend/cpu/conv/depthwise_util.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void depthwise_wrw(const DepthwiseShape& d, const VectorOps& ops, const ConvBuffers& b,
                   int threads) {
  const T* x = static_cast<const T*>(b.x);
  const T* dy = static_cast<const T*>(b.y);
  T* dw = static_cast<T*>(b.w);
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> g(static_cast<size_t>(d.OW)), in(static_cast<size_t>(d.W));
    std::vector<double> sum(static_cast<size_t>(d.R * d.S));
#pragma omp for schedule(static)
    for (long k = 0; k < d.K; ++k) {
      const long c = k / d.mult;
      std::fill(sum.begin(), sum.end(), 0.0);
      for (long n = 0; n < d.N; ++n) {
        const T* gplane = dy + (n * d.K + k) * d.OH * d.OW;
        const T* xplane = x + (n * d.C + c) * d.H * d.W;
        for (long oh = 0; oh < d.OH; ++oh) {
          const float* grow = float_row(gplane + oh * d.OW, d.OW, g.data());
          for (long r = 0; r < d.R; ++r) {
            const long ih = oh * d.sh + r * d.dh - d.ph;
            if (ih < 0 || ih >= d.H) continue;
            const float* xrow = float_row(xplane + ih * d.W, d.W, in.data());
            for (long s = 0; s < d.S; ++s) {
              long lo, hi;
              d.valid_columns(s, &lo, &hi);
              if (lo >= hi) continue;
              const float* src = xrow + s * d.dw - d.pw;
              sum[r * d.S + s] += ops.dot(grow + lo, src + lo * d.sw, d.sw, hi - lo);
            }
          }
        }
      }
      for (long t = 0; t < d.R * d.S; ++t)
        dw[k * d.R * d.S + t] = from_float<T>(static_cast<float>(sum[t]));
    }
  }
}

class ConvDepthwiseWrw final : public ConvSolver {
 public:
  std::string_view name() const override { return "ConvDepthwiseWrw"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoDirect; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardWeights,
                     "not a backward-weights problem");
    return depthwise_support(p);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return [d = DepthwiseShape(p), type = p.data_type(), ops = &vector_ops(ctx.config.cpu_isa),
            threads = ctx.config.num_threads](const ConvBuffers& b) {
      dispatch_float_type(type,
                          [&](auto tag) { depthwise_wrw<decltype(tag)>(d, *ops, b, threads); });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_conv_depthwise_wrw() {
  return std::make_unique<ConvDepthwiseWrw>();
}

}  // namespace anydnn::cpu
