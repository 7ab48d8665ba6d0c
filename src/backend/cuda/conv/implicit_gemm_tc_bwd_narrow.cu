// ImplicitGemmTensorCoreBwdNarrow: backward data into at most 32 input channels (a network's
// first layer: C = 1 or 3, padded to 8) as a CUTLASS implicit GEMM on tensor cores with a
// 128x32 block tile. The GEMM's N is the input channels: the 128-wide tiles of
// ImplicitGemmTensorCoreBwd spend 15/16 of their math and shared memory on padding when C <= 8.
// Any stride (CUTLASS's strided dgrad kernel); fp16, bf16, fp32 through TF32 when
// ANYDNN_CONV_ALLOW_TF32=1. The shared machinery is in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_dgrad.h"

namespace anydnn::cuda {
namespace {

// 128x32 blocks of four 32x32 warps (one column of warps along M), 3 stages.
template <class E>
struct NarrowTile {
  using Threadblock = cutlass::gemm::GemmShape<128, 32, 64>;
  using Warp = cutlass::gemm::GemmShape<32, 32, 64>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 16>;
  static constexpr int kStages = 3;
};
template <>
struct NarrowTile<float> {
  using Threadblock = cutlass::gemm::GemmShape<128, 32, 32>;
  using Warp = cutlass::gemm::GemmShape<32, 32, 32>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 8>;
  static constexpr int kStages = 3;
};

struct BwdNarrowTraits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreBwdNarrow";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardData;
  static constexpr bool kSplitK = false;
  static constexpr size_t kMaxInputChannels = 32;
  // About half the wide kernel's: a 128x32 block reuses each dy element over 32 columns instead
  // of 128, so it streams operands at twice the rate per flop. Fitted on the 2026-11-25 sweep
  // (every C <= 32 DeepBench / ResNet-50 layer, backward data, NCHW and NHWC): measured / modelled
  // 2.6-3.3 at the wide kernel's 0.72, and immediate mode's misses on that sweep 6 -> 4 at 0.35.
  static constexpr double kEfficiency = 0.35;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dDgrad<
      E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, E,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      typename NarrowTile<E>::Threadblock, typename NarrowTile<E>::Warp,
      typename NarrowTile<E>::Instruction, tc::Epilogue<E>,
      cutlass::conv::threadblock::StridedDgradIdentityThreadblockSwizzle<1>, NarrowTile<E>::kStages,
      cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kStrided>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmTensorCoreBwdNarrow final : public tc::TcSolver<BwdNarrowTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_bwd_narrow() {
  return std::make_unique<ImplicitGemmTensorCoreBwdNarrow>();
}

}  // namespace anydnn::cuda
