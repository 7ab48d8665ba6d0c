// ImplicitGemmTensorCoreFwdFixedChannels: forward convolution of inputs with at most 4 channels
// (the RGB stem of an image network) as a CUTLASS implicit GEMM on tensor cores with its
// fixed-channels iterators (fp16, bf16; fp32 through TF32 when ANYDNN_CONV_ALLOW_TF32=1). The
// channels are padded to 4 and each thread block reads the filter window's R*S*4 values as one
// contiguous reduction, where the general kernel (ImplicitGemmTensorCoreFwd) walks every tap's
// channels rounded up to its k tile: for the 7x7 3-channel stem 4 k tiles against 49. Tiles in
// implicit_gemm_configs.hpp (TileConfigFixedChannels); the shared machinery, and what is
// accepted, in implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_fprop.h"

namespace anydnn::cuda {
namespace {

struct FwdFixedChannelsTraits {
  static constexpr const char* kName = "ImplicitGemmTensorCoreFwdFixedChannels";
  static constexpr ConvDirection kDirection = ConvDirection::Forward;
  static constexpr bool kSplitK = false;
  // CUTLASS's fixed-channels iterators need C equal to their access width: 4 elements (8 bytes
  // of fp16, 16 of fp32), for activations and filter alike.
  static constexpr size_t kFixedChannels = 4;
  // Cost model: on the first H100 run (2026-12-07) a wave of resident blocks took 31-35 us
  // whatever its 4-13 k tiles (fp16 stem 0.248 ms in 8 waves; TF32 stem 0.405 ms and DeepSpeech
  // c1 5x20 0.392 ms in 8 and 9 waves, NCHW staging included), 5-10x the MMAs' modelled time:
  // the iterators' per-access address arithmetic (8-byte fp16 accesses), not the math, sets the
  // pace, so a wave is priced at no less than this.
  static constexpr double kWaveFloorMs = 0.03;
  template <class E>
  using Tile = tc::TileConfigFixedChannels<E>;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dFprop<
      E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, E,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      typename Tile<E>::Threadblock, typename Tile<E>::Warp, typename Tile<E>::Instruction,
      tc::Epilogue<E>, cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>,
      Tile<E>::kStages, cutlass::arch::OpMultiplyAdd,
      cutlass::conv::IteratorAlgorithm::kFixedChannels, cutlass::conv::StrideSupport::kStrided,
      static_cast<int>(kFixedChannels), static_cast<int>(kFixedChannels)>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemmTensorCoreFwdFixedChannels final : public tc::TcSolver<FwdFixedChannelsTraits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_tc_fwd_fixed_channels() {
  return std::make_unique<ImplicitGemmTensorCoreFwdFixedChannels>();
}

}  // namespace anydnn::cuda
