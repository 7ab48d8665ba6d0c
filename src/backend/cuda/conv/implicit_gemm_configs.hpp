// Every tile configuration the CUTLASS implicit-GEMM convolution solvers instantiate, in one
// place (issue [gpu-conv]: compile time stays bounded when the whole set is visible here).
//   - CUTLASS 2.x (sm80, implicit_gemm_tc_util.cuh): one tensor-op configuration per element
//     type, shared by the ImplicitGemmTensorCore* solvers of every direction, one for the
//     ImplicitGemm3xTf32* and one for the CUDA-core ImplicitGemmSimt* solvers.
//   - CUTLASS 3.x (sm90 TMA + wgmma, implicit_gemm_wgmma_util.cuh): wgmma::kConfigs, one solver
//     per line (its name, stable id and file), each file instantiating its line for the element
//     types of its direction: fp16 and bf16 everywhere, fp32 as TF32 in forward only (wgmma's
//     TF32 wants both operands K-major; backward data's filter and backward weights' dy are not).
// Find times every configuration that applies; the cost model ranks them for immediate mode.
#pragma once

#include <iterator>
#include <string_view>

#include "conv/conv_problem.hpp"
#include "cutlass/gemm/gemm.h"

namespace anydnn::cuda {
namespace tc {

// --- tile configurations: one per element type, shared by the three directions -------------

// fp16 / bf16: the configuration of CUTLASS's Ampere conv example (16_ampere_tensorop_conv2dfprop)
// and its profiler's best f16 NHWC tiles: 128x128x64 blocks, 2x2 warps of 64x64x64, 3 stages
// (96 KiB of shared memory, fits sm_80 and sm_90).
// fp32: TF32 mma.sync 16x8x8 with 128x128x32 blocks, 64x64x32 warps, 3 stages (96 KiB).
template <class E>
struct TileConfig {
  using Threadblock = cutlass::gemm::GemmShape<128, 128, 64>;
  using Warp = cutlass::gemm::GemmShape<64, 64, 64>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 16>;
  static constexpr int kStages = 3;
};
template <>
struct TileConfig<float> {
  using Threadblock = cutlass::gemm::GemmShape<128, 128, 32>;
  using Warp = cutlass::gemm::GemmShape<64, 64, 32>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 8>;
  static constexpr int kStages = 3;
};

// Inputs of at most 4 channels (ImplicitGemmTensorCoreFwdFixedChannels): the GEMM's N is the
// output channels, 64 in the image networks' stems, so 64-wide blocks (2x2 warps of 64x32);
// the k tile as TileConfig's. CUTLASS's fixed-channels tests use these warp shapes.
template <class E>
struct TileConfigFixedChannels {
  using Threadblock = cutlass::gemm::GemmShape<128, 64, 64>;
  using Warp = cutlass::gemm::GemmShape<64, 32, 64>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 16>;
  static constexpr int kStages = 3;
};
template <>
struct TileConfigFixedChannels<float> {
  using Threadblock = cutlass::gemm::GemmShape<128, 64, 32>;
  using Warp = cutlass::gemm::GemmShape<64, 32, 32>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 8>;
  static constexpr int kStages = 3;
};

// fp32 at fp32 accuracy on TF32 tensor cores (3xTF32, CUTLASS's OpMultiplyAddFastF32): each
// operand is split into a TF32 "big" part and the TF32-rounded rest, and big*big + big*small +
// small*big are accumulated in fp32 (the small*small term, ~2^-22 of the product, is dropped):
// three TF32 mma per step, so the k tile is halved against plain TF32 to keep the registers of
// the split fragments; 4 stages (64 KiB). The tiles of CUTLASS's generator for its sm80
// "fast accurate" tf32 kernels.
struct TileConfig3xTf32 {
  using Threadblock = cutlass::gemm::GemmShape<128, 128, 16>;
  using Warp = cutlass::gemm::GemmShape<64, 64, 16>;
  using Instruction = cutlass::gemm::GemmShape<16, 8, 8>;
  static constexpr int kStages = 4;
};

// fp32 on CUDA cores (strict fp32: FFMA, no tensor cores): the tiles of CUTLASS's generator for
// its sm80 SIMT fp32 convolutions, 128x128x8 blocks of 4x2 warps (32x64x8), 4 stages (32 KiB).
struct TileConfigSimt {
  using Threadblock = cutlass::gemm::GemmShape<128, 128, 8>;
  using Warp = cutlass::gemm::GemmShape<32, 64, 8>;
  using Instruction = cutlass::gemm::GemmShape<1, 1, 1>;
  static constexpr int kStages = 4;
};

}  // namespace tc

namespace wgmma {

// One CUTLASS 3.x sm90 convolution kernel = one solver. The thread block tile is tile_m x tile_n
// of the implicit GEMM (forward: N*P*Q x K; backward data: N*H*W x C; backward weights:
// K x C*R*S), its k step 128 bytes of the element (64 for fp16 / bf16, 32 for TF32); cluster_m
// thread blocks along M share each B tile through TMA multicast. One consumer warp group per
// block (CUTLASS's non-persistent KernelImplicitTmaWarpSpecializedSm90, the only schedule its sm90
// convolutions have), so tiles stay at or below 128x128 (128 fp32 accumulators per consumer
// thread).
struct Config {
  std::string_view name;
  int id;
  ConvDirection direction;
  int tile_m, tile_n, cluster_m;
  int spatial_dims = 2;  // 2-D (NHWC) or 3-D (NDHWC) kernels
};

// Ids are stable (docs/adding-a-solver.md): never renumber or reuse one.
inline constexpr Config kConfigs[] = {
    // Forward (implicit_gemm_wgmma_fwd_*.cu)
    {"ImplicitGemmWgmmaFwd128x128", 118, ConvDirection::Forward, 128, 128, 1},
    {"ImplicitGemmWgmmaFwd128x128c2", 119, ConvDirection::Forward, 128, 128, 2},
    {"ImplicitGemmWgmmaFwd128x64", 120, ConvDirection::Forward, 128, 64, 1},
    {"ImplicitGemmWgmmaFwd64x128", 121, ConvDirection::Forward, 64, 128, 1},
    // Backward data, unit stride (CUTLASS's sm90 dgrad has no strided form)
    {"ImplicitGemmWgmmaBwd128x128", 122, ConvDirection::BackwardData, 128, 128, 1},
    {"ImplicitGemmWgmmaBwd128x64", 123, ConvDirection::BackwardData, 128, 64, 1},
    {"ImplicitGemmWgmmaBwd64x128", 124, ConvDirection::BackwardData, 64, 128, 1},
    // Backward weights (no split-K in CUTLASS's sm90 schedule: the 2.x wgrad with split-K stays
    // the choice where K x C*R*S is a handful of tiles)
    {"ImplicitGemmWgmmaWrw128x128", 125, ConvDirection::BackwardWeights, 128, 128, 1},
    {"ImplicitGemmWgmmaWrw64x128", 126, ConvDirection::BackwardWeights, 64, 128, 1},
    {"ImplicitGemmWgmmaWrw128x64", 127, ConvDirection::BackwardWeights, 128, 64, 1},
    // 3-D (NDHWC, filters KTRSC). Id 128 is the 2.x ImplicitGemmTensorCoreWrwSerial; 131 was
    // the first 3-D backward-weights kernel, retired while a stride bug of ours (the filter
    // taps' output strides left at 0) made it mis-sum every filter larger than 1x1; 136 is the
    // same kernel back after the fix.
    {"ImplicitGemmWgmmaFwd3d128x128", 129, ConvDirection::Forward, 128, 128, 1, 3},
    {"ImplicitGemmWgmmaBwd3d128x128", 130, ConvDirection::BackwardData, 128, 128, 1, 3},
    {"ImplicitGemmWgmmaWrw3d128x128", 136, ConvDirection::BackwardWeights, 128, 128, 1, 3},
};

// The table index of a solver, by name (compile time: a typo fails the build).
consteval int index_of(std::string_view name) {
  for (int i = 0; i < static_cast<int>(std::size(kConfigs)); ++i)
    if (kConfigs[i].name == name) return i;
  throw "no such wgmma configuration";
}

}  // namespace wgmma
}  // namespace anydnn::cuda
