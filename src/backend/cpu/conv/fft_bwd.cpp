// ConvFftBwd: backward data of a unit-stride, undilated 2-D convolution of packed NCHW fp32 tensors
// by FFT (kernels/fft_conv.hpp: FFTW transforms, one complex GEMM per frequency bin). Pays for
// large filters, where R*S multiplies per output shrink to a few per frequency bin.
#include <memory>

#include "backend/cpu/conv/fft_util.hpp"

namespace anydnn::cpu {

namespace {

class ConvFftBwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "ConvFftBwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoFFT; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardData, "not a backward-data problem");
    return fft_support(p);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return fft_workspace(ctx, p);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return fft_invoker(ctx, p);
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_conv_fft_bwd() {
  return std::make_unique<ConvFftBwd>();
}

}  // namespace anydnn::cpu
