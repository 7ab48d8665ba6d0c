// WinogradF4x3Bwd: backward data of a 3x3 unit-stride convolution of packed NCHW fp32 tensors with
// Winograd F(4x4, 3x3) as the forward convolution of dy with the rotated, transposed filters
// (kernels/winograd_f4x3.hpp): 4x fewer multiplies than direct, paid for
// by the input, filter and output transforms, so it pays on large feature maps and channel
// counts. Padding up to 2 (dy is padded by 2 - pad), any group count.
#include <memory>

#include "backend/cpu/conv/winograd_util.hpp"

namespace anydnn::cpu {

namespace {

class WinogradF4x3Bwd final : public ConvSolver {
 public:
  std::string_view name() const override { return "WinogradF4x3Bwd"; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoWinograd; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != ConvDirection::BackwardData, "not a backward-data problem");
    return winograd_f4x3_support(p);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return winograd_f4x3_workspace(ctx, p);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return winograd_f4x3_invoker(ctx, p);
  }
};

}  // namespace

std::unique_ptr<ConvSolver> make_winograd_f4x3_bwd() {
  return std::make_unique<WinogradF4x3Bwd>();
}

}  // namespace anydnn::cpu
