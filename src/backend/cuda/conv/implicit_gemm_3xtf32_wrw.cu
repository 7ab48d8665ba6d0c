// ImplicitGemm3xTf32Wrw: fp32 backward-weights convolution at fp32 accuracy on tensor cores:
// CUTLASS's wgrad kernel with OpMultiplyAddFastF32 (3xTF32, see implicit_gemm_3xtf32_fwd.cu),
// its long reduction (N*P*Q) split over thread blocks as ImplicitGemmTensorCoreWrw does (parallel
// split-K, fp32 partials summed in a fixed order: deterministic). The shared machinery is
// implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_wgrad.h"

namespace anydnn::cuda {
namespace {

struct Wrw3xTf32Traits {
  static constexpr const char* kName = "ImplicitGemm3xTf32Wrw";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardWeights;
  static constexpr bool kSplitK = true;
  static constexpr bool kExactFp32 = true;
  using Tile = tc::TileConfig3xTf32;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dWgrad<
      float, cutlass::layout::TensorNHWC, float, cutlass::layout::TensorNHWC, float,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      Tile::Threadblock, Tile::Warp, Tile::Instruction, tc::Epilogue<float>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, Tile::kStages,
      cutlass::arch::OpMultiplyAddFastF32, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemm3xTf32Wrw final : public tc::TcSolver<Wrw3xTf32Traits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_3xtf32_wrw() {
  return std::make_unique<ImplicitGemm3xTf32Wrw>();
}

}  // namespace anydnn::cuda
