// ImplicitGemm3xTf32Bwd: fp32 backward-data convolution at fp32 accuracy on tensor cores:
// CUTLASS's strided dgrad kernel with OpMultiplyAddFastF32 (3xTF32, see
// implicit_gemm_3xtf32_fwd.cu). Any stride (each stride phase its own GEMM); CUTLASS rejects
// dilation > 1 for this kernel. The shared machinery is implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_dgrad.h"

namespace anydnn::cuda {
namespace {

struct Bwd3xTf32Traits {
  static constexpr const char* kName = "ImplicitGemm3xTf32Bwd";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardData;
  static constexpr bool kSplitK = false;
  static constexpr bool kExactFp32 = true;
  using Tile = tc::TileConfig3xTf32;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dDgrad<
      float, cutlass::layout::TensorNHWC, float, cutlass::layout::TensorNHWC, float,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      Tile::Threadblock, Tile::Warp, Tile::Instruction, tc::Epilogue<float>,
      cutlass::conv::threadblock::StridedDgradIdentityThreadblockSwizzle<1>, Tile::kStages,
      cutlass::arch::OpMultiplyAddFastF32, cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kStrided>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemm3xTf32Bwd final : public tc::TcSolver<Bwd3xTf32Traits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_3xtf32_bwd() {
  return std::make_unique<ImplicitGemm3xTf32Bwd>();
}

}  // namespace anydnn::cuda
