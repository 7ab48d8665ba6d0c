// WinogradF4x3Fwd: forward 3x3 unit-stride convolution of packed NCHW fp32 tensors with
// Winograd F(4x4, 3x3) (kernels/winograd_f4x3.hpp): 4x fewer multiplies than direct, paid for
// by the input, filter and output transforms, so it pays on large feature maps and channel
// counts. Any padding and group count. Takes a fused epilogue (conv_epilogue.hpp), applied to
// each block of output tiles right after the output transform.
#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/conv/winograd_util.hpp"

namespace anydnn::cpu {

namespace {

class WinogradF4x3Fwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "WinogradF4x3Fwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoWinograd; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
    return winograd_f4x3_support(p);
  }
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    return cpu_epilogue_support(p, needs);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return winograd_f4x3_workspace(ctx, p);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return winograd_f4x3_invoker(ctx, p);
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_winograd_f4x3_fwd() {
  return std::make_unique<WinogradF4x3Fwd>();
}

}  // namespace anydnn::cpu
