// Shared by the FFT solvers (fft_{fwd,bwd,wrw}.cpp, each naming its direction): which problems
// they take, their invoker around kernels/fft_conv.hpp, and the solver class, which differs
// between the directions only by name and the direction it takes.
#pragma once

#include <string_view>

#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

Applicability fft_support(const ConvProblem& p);
size_t fft_workspace(const ExecutionContext& ctx, const ConvProblem& p);
ConvInvoker fft_invoker(const ExecutionContext& ctx, const ConvProblem& p);

template <ConvDirection kDir>
class ConvFftSolver final : public ConvSolver {
 public:
  explicit ConvFftSolver(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoFFT; }
  Applicability applicable(const ExecutionContext&, const ConvProblem& p) const override {
    if (const Applicability d = direction_is(p, kDir); !d) return d;
    return fft_support(p);
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return fft_workspace(ctx, p);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return fft_invoker(ctx, p);
  }

 private:
  std::string_view name_;
};

}  // namespace anydnn::cpu
