// ImplicitGemmTensorCoreWrw: backward-weights convolution as a CUTLASS implicit GEMM on tensor
// cores (fp16, bf16; fp32 through TF32 when ANYDNN_CONV_ALLOW_TF32=1). The shared machinery,
// and what is accepted, is in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_wgrad.cuh"

namespace anydnn::cuda {
namespace {

struct WrwTraits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreWrw";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardWeights;
  // GEMM K is N*P*Q (~100k for ResNet layers) while M x N = K x C*R*S is often a handful of
  // tiles: the reduction is split over several thread blocks (parallel split-K, slice count in
  // TcSolver's plan). Each slice writes its fp32 partial sum, hence ElementC = float for every
  // type, and tc::SplitKReduction<E> adds the slices in a fixed order and converts to E:
  // deterministic, unlike atomics (ImplicitGemmTensorCoreWrwSerial adds in slice order instead).
  static constexpr bool kSplitK = true;
  template <class E>
  using Op = tc::WgradOp<E>;
};

class ImplicitGemmTensorCoreWrw final : public tc::TcSolver<WrwTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_wrw() {
  return std::make_unique<ImplicitGemmTensorCoreWrw>();
}

}  // namespace anydnn::cuda
