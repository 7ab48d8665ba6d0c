// Shared by the Winograd F(4x4, 3x3) solvers (winograd_f4x3_fwd.cpp, winograd_f4x3_bwd.cpp):
// which problems they take and the invoker around kernels/winograd_f4x3.hpp. Backward data is
// the forward convolution of dy with the filters rotated by 180 degrees and transposed (k <-> c),
// padded by 2 - pad, so both directions run the same plan.
#pragma once

#include "backend/cpu/kernels/winograd_f4x3.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

Applicability winograd_f4x3_support(const ConvProblem& p);
size_t winograd_f4x3_workspace(const ExecutionContext& ctx, const ConvProblem& p);
ConvInvoker winograd_f4x3_invoker(const ExecutionContext& ctx, const ConvProblem& p);

}  // namespace anydnn::cpu
