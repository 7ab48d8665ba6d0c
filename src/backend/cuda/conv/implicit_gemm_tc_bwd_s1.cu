// ImplicitGemmTensorCoreBwdS1: backward-data convolution with stride 1 as a CUTLASS implicit
// GEMM on tensor cores (fp16, bf16; fp32 through TF32 when ANYDNN_CONV_ALLOW_TF32=1), with
// CUTLASS's unit-stride dgrad kernel. ImplicitGemmTensorCoreBwd's strided kernel also covers
// stride 1, but treats it as one stride phase through the strided iterators, which price every
// filter tap's position check per element; the unit-stride kernel walks dy like a forward
// convolution's input. The shared machinery, and what is accepted, is in
// implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_dgrad.h"

namespace anydnn::cuda {
namespace {

struct BwdS1Traits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreBwdS1";
  static constexpr ConvDirection kDirection = ConvDirection::BackwardData;
  static constexpr bool kSplitK = false;
  static constexpr bool kUnitStrideOnly = true;
  // The strided kernel's efficiency x 1.06: on the 2026-11-25 sweep (every stride-1 ResNet-50
  // and DeepBench layer, fp16 / bf16 / TF32) the strided kernel took 1.05-1.07x this one's time
  // (geomean; 0.98-1.24x per layer).
  static constexpr double kEfficiency = kCutlassDgradEfficiency * 1.06;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dDgrad<
      E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, E,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      typename tc::TileConfig<E>::Threadblock, typename tc::TileConfig<E>::Warp,
      typename tc::TileConfig<E>::Instruction, tc::Epilogue<E>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, tc::TileConfig<E>::kStages,
      cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kUnity>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmTensorCoreBwdS1 final : public tc::TcSolver<BwdS1Traits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_bwd_s1() {
  return std::make_unique<ImplicitGemmTensorCoreBwdS1>();
}

}  // namespace anydnn::cuda
