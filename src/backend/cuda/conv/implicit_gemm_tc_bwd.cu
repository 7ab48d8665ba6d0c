// ImplicitGemmTensorCoreBwd: backward-data convolution as a CUTLASS implicit GEMM on tensor
// cores (fp16, bf16; fp32 through TF32 when ANYDNN_CONV_ALLOW_TF32=1). The shared machinery, and
// what is accepted, is in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_dgrad.h"

namespace anydnn::cuda {
namespace {

struct BwdTraits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreBwd";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardData;
  static constexpr bool kSplitK = false;
  // The strided-dgrad kernel: one instantiation for every stride (stride 1 included; each
  // stride phase of dx is its own GEMM, phases no filter tap reaches are written as zeros).
  // CUTLASS rejects dilation > 1 for it (can_implement).
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dDgrad<
      E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, E,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      typename tc::TileConfig<E>::Threadblock, typename tc::TileConfig<E>::Warp,
      typename tc::TileConfig<E>::Instruction, tc::Epilogue<E>,
      cutlass::conv::threadblock::StridedDgradIdentityThreadblockSwizzle<1>,
      tc::TileConfig<E>::kStages, cutlass::arch::OpMultiplyAdd,
      cutlass::conv::IteratorAlgorithm::kOptimized, cutlass::conv::StrideSupport::kStrided>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmTensorCoreBwd final : public tc::TcSolver<BwdTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_bwd() {
  return std::make_unique<ImplicitGemmTensorCoreBwd>();
}

}  // namespace anydnn::cuda
