// ImplicitGemmTensorCoreFwd: forward convolution as a CUTLASS implicit GEMM on tensor cores
// (fp16, bf16; fp32 through TF32 when ANYDNN_CONV_ALLOW_TF32=1). The shared machinery, and what
// is accepted, is in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_fprop.h"

namespace anydnn::cuda {
namespace {

struct FwdTraits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreFwd";
  static constexpr ConvDirection kDirection = ConvDirection::Forward;
  static constexpr bool kSplitK = false;
  // The optimized iterators take any stride, padding and dilation (filters up to 32x32).
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dFprop<
      E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, E,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      typename tc::TileConfig<E>::Threadblock, typename tc::TileConfig<E>::Warp,
      typename tc::TileConfig<E>::Instruction, tc::Epilogue<E>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, tc::TileConfig<E>::kStages,
      cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmTensorCoreFwd final : public tc::TcSolver<FwdTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_fwd() {
  return std::make_unique<ImplicitGemmTensorCoreFwd>();
}

}  // namespace anydnn::cuda
