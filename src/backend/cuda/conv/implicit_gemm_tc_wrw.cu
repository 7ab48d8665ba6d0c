// ImplicitGemmTensorCoreWrw: backward-weights convolution as a CUTLASS implicit GEMM on tensor
// cores (fp16, bf16; fp32 through TF32 when ANYDNN_CONV_ALLOW_TF32=1). The shared machinery,
// and what is accepted, is in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_wgrad.h"

namespace anydnn::cuda {
namespace {

struct WrwTraits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreWrw";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardWeights;
  // GEMM K is N*P*Q, the whole reduction in one thread block per output tile: no split-K, so
  // the result does not depend on the order blocks finish (deterministic), at the price of
  // fewer blocks for small K x CRS.
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dWgrad<
      E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, E,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      typename tc::TileConfig<E>::Threadblock, typename tc::TileConfig<E>::Warp,
      typename tc::TileConfig<E>::Instruction, tc::Epilogue<E>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, tc::TileConfig<E>::kStages,
      cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmTensorCoreWrw final : public tc::TcSolver<WrwTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_wrw() {
  return std::make_unique<ImplicitGemmTensorCoreWrw>();
}

}  // namespace anydnn::cuda
