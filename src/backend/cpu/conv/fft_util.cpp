#include "backend/cpu/conv/fft_util.hpp"

#include <memory>

#include "backend/cpu/conv/gemm_util.hpp"
#include "backend/cpu/kernels/fft_conv.hpp"

namespace anydnn::cpu {

namespace {
// Frames beyond this many points (a 1024 x 1024 image) would need more memory than a
// convolution should take.
constexpr long kMaxFramePoints = 1L << 20;
}  // namespace

Applicability fft_support(const ConvProblem& p) {
  ANYDNN_REJECT_IF(p.data_type() != miopenFloat, "fp32 only");
  ANYDNN_REJECT_IF(p.spatial_dims() != 2, "2-D only");
  ANYDNN_REJECT_IF(p.strides()[1] != 1 || p.strides()[2] != 1, "stride is not 1");
  ANYDNN_REJECT_IF(p.dilations()[1] != 1 || p.dilations()[2] != 1, "dilation is not 1");
  ANYDNN_REJECT_IF(p.filter_size()[1] * p.filter_size()[2] < 9,
                   "filter smaller than 3x3 (FFT does not pay)");
  const long hf = FftConvPlan::fast_size(static_cast<long>(p.in_size()[1]) + 2L * p.pads()[1]);
  const long wf = FftConvPlan::fast_size(static_cast<long>(p.in_size()[2]) + 2L * p.pads()[2]);
  ANYDNN_REJECT_IF(hf * wf > kMaxFramePoints, "image too large for one FFT frame");
  return gemm_problem_support(p, kCblas);
}

size_t fft_workspace(const ExecutionContext& ctx, const ConvProblem& p) {
  return FftConvPlan(p, ctx.config.num_threads).workspace_bytes();
}

ConvInvoker fft_invoker(const ExecutionContext& ctx, const ConvProblem& p) {
  auto plan = std::make_shared<const FftConvPlan>(p, ctx.config.num_threads);
  return [plan](const ConvBuffers& b) { plan->run(b.x, b.w, b.y, b.workspace); };
}

}  // namespace anydnn::cpu
