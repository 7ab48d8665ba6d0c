// ImplicitGemmSimtBwd: fp32 backward-data convolution at strict fp32 (FFMA on CUDA cores) as
// CUTLASS's sm80 SIMT strided-dgrad implicit GEMM (every stride; each stride phase of dx its own
// GEMM, as ImplicitGemmTensorCoreBwd): no column matrix and no col2im pass, unlike GemmBwdRest.
// CUTLASS rejects dilation > 1 for it. Tiles in implicit_gemm_configs.hpp (TileConfigSimt); the
// shared machinery in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_dgrad.h"

namespace anydnn::cuda {
namespace {

struct BwdSimtTraits {
  static constexpr const char* kName = "ImplicitGemmSimtBwd";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardData;
  static constexpr bool kSplitK = false;
  static constexpr bool kSimtFp32 = true;
  // Cost model: its share of the fp32 peak relative to kCutlassEfficiency, a guess until a GPU
  // sweep measures it (CUTLASS's SIMT SGEMM runs at 70-80% of the peak, a convolution lower).
  static constexpr double kEfficiency = 0.5;
  using Tile = tc::TileConfigSimt;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dDgrad<
      float, cutlass::layout::TensorNHWC, float, cutlass::layout::TensorNHWC, float,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassSimt, cutlass::arch::Sm80,
      Tile::Threadblock, Tile::Warp, Tile::Instruction, tc::EpilogueSimt,
      cutlass::conv::threadblock::StridedDgradIdentityThreadblockSwizzle<1>, Tile::kStages,
      cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kStrided>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmSimtBwd final : public tc::TcSolver<BwdSimtTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_simt_bwd() {
  return std::make_unique<ImplicitGemmSimtBwd>();
}

}  // namespace anydnn::cuda
