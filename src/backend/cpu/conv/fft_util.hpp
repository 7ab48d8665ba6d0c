// Shared by the FFT solvers (fft_{fwd,bwd,wrw}.cpp): which problems they take and their
// invoker around kernels/fft_conv.hpp.
#pragma once

#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

Applicability fft_support(const ConvProblem& p);
size_t fft_workspace(const ExecutionContext& ctx, const ConvProblem& p);
ConvInvoker fft_invoker(const ExecutionContext& ctx, const ConvProblem& p);

}  // namespace anydnn::cpu
