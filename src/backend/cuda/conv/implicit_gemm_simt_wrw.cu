// ImplicitGemmSimtWrw: fp32 backward-weights convolution at strict fp32 (FFMA on CUDA cores) as
// CUTLASS's sm80 SIMT wgrad implicit GEMM, its long reduction (N*P*Q) split over several thread
// blocks (parallel split-K, fp32 partials summed in a fixed order by tc::SplitKReduction):
// deterministic, and no column matrix, unlike GemmWrwUniversal. Tiles in
// implicit_gemm_configs.hpp (TileConfigSimt); the shared machinery in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_wgrad.h"

namespace anydnn::cuda {
namespace {

struct WrwSimtTraits {
  static constexpr const char* kName = "ImplicitGemmSimtWrw";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardWeights;
  static constexpr bool kSplitK = true;
  static constexpr bool kSimtFp32 = true;
  // Cost model: its share of the fp32 peak relative to kCutlassEfficiency, a guess until a GPU
  // sweep measures it (CUTLASS's SIMT SGEMM runs at 70-80% of the peak, a convolution lower).
  static constexpr double kEfficiency = 0.5;
  using Tile = tc::TileConfigSimt;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dWgrad<
      float, cutlass::layout::TensorNHWC, float, cutlass::layout::TensorNHWC, float,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassSimt, cutlass::arch::Sm80,
      Tile::Threadblock, Tile::Warp, Tile::Instruction, tc::EpilogueSimt,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, Tile::kStages,
      cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmSimtWrw final : public tc::TcSolver<WrwSimtTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_simt_wrw() {
  return std::make_unique<ImplicitGemmSimtWrw>();
}

}  // namespace anydnn::cuda
