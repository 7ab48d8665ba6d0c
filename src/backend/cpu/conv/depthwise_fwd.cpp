// ConvDepthwiseFwd: forward depthwise convolution (depthwise_util.hpp) of packed NCHW tensors
// of any float type: each input plane is copied once into a zero-padded fp32 plane, then every
// output plane of that channel is R*S shifted, scaled reads of it, 16 outputs per vector
// (kernels/vector_ops.hpp). Threads take (image, channel) planes. A fused epilogue
// (conv_epilogue.hpp) runs on each output plane right after it is computed, before a 16-bit
// one is narrowed.
#include <omp.h>

#include <memory>
#include <vector>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/depthwise_util.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void depthwise_fwd(const DepthwiseShape& d, const VectorOps& ops, const ConvBuffers& b, int threads,
                   CpuIsa isa) {
  const T* x = static_cast<const T*>(b.x);
  const T* w = static_cast<const T*>(b.w);
  T* y = static_cast<T*>(b.y);
  // fp32 planes are written in place (residual offsets from y); 16-bit ones take no residual.
  const CpuEpilogue ep(b.epilogue, isa,
                       std::is_same_v<T, float> ? reinterpret_cast<const float*>(y) : nullptr);
  // The padded input plane covers every tap of every output.
  const long hp = (d.OH - 1) * d.sh + (d.R - 1) * d.dh + 1;
  const long wp = (d.OW - 1) * d.sw + (d.S - 1) * d.dw + 1;
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> pad(static_cast<size_t>(hp * wp)), out(static_cast<size_t>(d.OH * d.OW)),
        taps(static_cast<size_t>(d.R * d.S));
#pragma omp for schedule(static)
    for (long nc = 0; nc < d.N * d.C; ++nc) {
      const long n = nc / d.C, c = nc % d.C;
      padded_plane(x + nc * d.H * d.W, d.H, d.W, d.ph, d.pw, hp, wp, pad.data());
      for (long j = 0; j < d.mult; ++j) {
        const long k = c * d.mult + j;
        for (long t = 0; t < d.R * d.S; ++t)
          taps[t] = to_float(w[k * d.R * d.S + t]);
        T* dst = y + (n * d.K + k) * d.OH * d.OW;
        float* o = std::is_same_v<T, float> ? reinterpret_cast<float*>(dst) : out.data();
        ops.depthwise_plane(pad.data(), wp, taps.data(), d.R, d.S, d.sh, d.sw, d.dh, d.dw, o, d.OH,
                            d.OW);
        if (ep.active() && std::is_same_v<T, float>)
          ep.rows(o, 0, 1, d.OH * d.OW, k, 0);
        else if (ep.active())
          ep.rows_with(o, nullptr, 0, 1, d.OH * d.OW, k, 0);
        if constexpr (!std::is_same_v<T, float>)
          for (long i = 0; i < d.OH * d.OW; ++i)
            dst[i] = from_float<T>(out[i]);
      }
    }
  }
}

class ConvDepthwiseFwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ConvDepthwiseFwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoDirect; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
    return depthwise_support(p);
  }
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return cpu_epilogue_support(p, needs);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return [d = DepthwiseShape(p), type = p.data_type(), ops = &vector_ops(ctx.config.cpu_isa),
            threads = ctx.config.num_threads, isa = ctx.config.cpu_isa](const ConvBuffers& b) {
      dispatch_float_type(
          type, [&](auto tag) { depthwise_fwd<decltype(tag)>(d, *ops, b, threads, isa); });
    };
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_conv_depthwise_fwd() {
  return std::make_unique<ConvDepthwiseFwd>();
}

}  // namespace anydnn::cpu
