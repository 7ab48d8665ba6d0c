// ConvDepthwiseBwd: backward data of a depthwise convolution (depthwise_util.hpp) of packed
// NCHW tensors of any float type. Each dx plane sums the m output channels of its input channel:
// with unit stride as the forward depthwise convolution of padded dy with the rotated filter,
// otherwise by adding every scaled dy row back into the dx row it came from; in an fp32 plane
// per thread that is converted once at the end.
#include <omp.h>

#include <memory>
#include <vector>

#include "backend/cpu/conv/depthwise_util.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void depthwise_bwd(const DepthwiseShape& d, const VectorOps& ops, const ConvBuffers& b,
                   int threads) {
  const T* dy = static_cast<const T*>(b.y);
  const T* w = static_cast<const T*>(b.w);
  T* dx = static_cast<T*>(b.x);
  // Unit stride: dx is the forward depthwise convolution of dy padded by dil*(R-1) - pad with
  // the filter rotated by 180 degrees. Otherwise every dy row is scattered back, tap by tap.
  const bool unit = d.sh == 1 && d.sw == 1;
  const long top = (d.R - 1) * d.dh - d.ph, left = (d.S - 1) * d.dw - d.pw;
  const long hp = d.H + (d.R - 1) * d.dh, wp = d.W + (d.S - 1) * d.dw;
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> acc(static_cast<size_t>(d.H * d.W)), part(static_cast<size_t>(d.H * d.W)),
        row(static_cast<size_t>(d.OW)), taps(static_cast<size_t>(d.R * d.S));
    std::vector<float> pad(unit ? static_cast<size_t>(hp * wp) : 0);
#pragma omp for schedule(static)
    for (long nc = 0; nc < d.N * d.C; ++nc) {
      const long n = nc / d.C, c = nc % d.C;
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (long j = 0; j < d.mult; ++j) {
        const long k = c * d.mult + j;
        const T* plane = dy + (n * d.K + k) * d.OH * d.OW;
        const T* tk = w + k * d.R * d.S;
        if (unit) {
          for (long t = 0; t < d.R * d.S; ++t)
            taps[t] = to_float(tk[d.R * d.S - 1 - t]);
          padded_plane(plane, d.OH, d.OW, top, left, hp, wp, pad.data());
          ops.depthwise_plane(pad.data(), wp, taps.data(), d.R, d.S, 1, 1, d.dh, d.dw,
                              d.mult == 1 ? acc.data() : part.data(), d.H, d.W);
          if (d.mult > 1)
            for (long i = 0; i < d.H * d.W; ++i)
              acc[i] += part[i];
          continue;
        }
        for (long oh = 0; oh < d.OH; ++oh) {
          const float* g = float_row(plane + oh * d.OW, d.OW, row.data());
          for (long r = 0; r < d.R; ++r) {
            const long ih = oh * d.sh + r * d.dh - d.ph;
            if (ih < 0 || ih >= d.H) continue;
            for (long s = 0; s < d.S; ++s) {
              long lo, hi;
              d.valid_columns(s, &lo, &hi);
              if (lo >= hi) continue;
              float* out = acc.data() + ih * d.W + s * d.dw - d.pw;
              ops.axpy_scatter(out + lo * d.sw, d.sw, g + lo, to_float(tk[r * d.S + s]), hi - lo);
            }
          }
        }
      }
      T* out = dx + nc * d.H * d.W;
      for (long i = 0; i < d.H * d.W; ++i)
        out[i] = from_float<T>(acc[i]);
    }
  }
}

class ConvDepthwiseBwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ConvDepthwiseBwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoDirect; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardData, "not a backward-data problem");
    return depthwise_support(p);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return [d = DepthwiseShape(p), type = p.data_type(), ops = &vector_ops(ctx.config.cpu_isa),
            threads = ctx.config.num_threads](const ConvBuffers& b) {
      dispatch_float_type(type,
                          [&](auto tag) { depthwise_bwd<decltype(tag)>(d, *ops, b, threads); });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_conv_depthwise_bwd() {
  return std::make_unique<ConvDepthwiseBwd>();
}

}  // namespace anydnn::cpu
