// ImplicitGemm3xTf32Fwd: fp32 forward convolution at fp32 accuracy on tensor cores: CUTLASS's
// implicit GEMM with OpMultiplyAddFastF32 (3xTF32: each operand split into a TF32 part and its
// TF32-rounded remainder, three mma per step, fp32 accumulation). Needs no TF32 switch: its
// error against the double reference is that of fp32 math
// (tests/gpu/implicit_gemm_3xtf32_gpu_test.cpp). The shared machinery (staging, padding, problem
// checks) is implicit_gemm_tc_util.cuh.
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_fprop.h"

namespace anydnn::cuda {
namespace {

struct Fwd3xTf32Traits {
  static constexpr const char* kName = "ImplicitGemm3xTf32Fwd";
  static constexpr ConvDirection kDirection = ConvDirection::Forward;
  static constexpr bool kSplitK = false;
  static constexpr bool kExactFp32 = true;
  using Tile = tc::TileConfig3xTf32;
  template <class E>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dFprop<
      float, cutlass::layout::TensorNHWC, float, cutlass::layout::TensorNHWC, float,
      cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
      Tile::Threadblock, Tile::Warp, Tile::Instruction, tc::Epilogue<float>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, Tile::kStages,
      cutlass::arch::OpMultiplyAddFastF32, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;
  template <class E>
  using Op = cutlass::conv::device::ImplicitGemmConvolution<Kernel<E>>;
};

class ImplicitGemm3xTf32Fwd final : public tc::TcSolver<Fwd3xTf32Traits> {};

}  // namespace

std::unique_ptr<ConvSolver> make_implicit_gemm_3xtf32_fwd() {
  return std::make_unique<ImplicitGemm3xTf32Fwd>();
}

}  // namespace anydnn::cuda
