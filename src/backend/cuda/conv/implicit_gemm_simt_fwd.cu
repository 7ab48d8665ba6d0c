// ImplicitGemmSimtFwd: fp32 forward convolution at strict fp32 (FFMA on CUDA cores, no tensor
// cores, no TF32 switch needed) as CUTLASS's sm80 SIMT implicit GEMM with the optimized
// iterators: no im2col pass and no column matrix, unlike GemmFwdRest. Tiles in
// implicit_gemm_configs.hpp (TileConfigSimt); the shared machinery, and what is accepted, in
// implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_fprop.h"

namespace anydnn::cuda {
namespace {

struct FwdSimtTraits {
  static constexpr const char* kName = "ImplicitGemmSimtFwd";
  static constexpr ConvDirection kDirection = ConvDirection::Forward;
  static constexpr bool kSplitK = false;
  static constexpr bool kSimtFp32 = true;
  // Cost model: its share of the fp32 peak relative to kCutlassEfficiency, a guess until a GPU
  // sweep measures it (CUTLASS's SIMT SGEMM runs at 70-80% of the peak, a convolution lower).
  static constexpr double kEfficiency = 0.5;
  using Tile = tc::TileConfigSimt;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dFprop<
      float, cutlass::layout::TensorNHWC, float, cutlass::layout::TensorNHWC, float,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassSimt, cutlass::arch::Sm80,
      Tile::Threadblock, Tile::Warp, Tile::Instruction, tc::EpilogueSimt,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, Tile::kStages,
      cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmSimtFwd final : public tc::TcSolver<FwdSimtTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_simt_fwd() {
  return std::make_unique<ImplicitGemmSimtFwd>();
}

}  // namespace anydnn::cuda
