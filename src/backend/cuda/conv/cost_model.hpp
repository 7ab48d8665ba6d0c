// Cost models of the CUDA convolution solvers (ConvSolver::estimated_ms): predicted run times
// from the device's peak rates and the work each solver's kernels do, so that immediate mode can
// list the fastest solver first without timing anything and Find's default mode times only the
// solvers that can win (docs/find-and-heuristics.md). The structure follows the kernels: a GEMM
// is priced by its thread-block tiles in waves over the SMs (the quantisation that makes small
// or oddly shaped GEMMs slow), a memory pass by its bytes, every launch by a fixed overhead; the
// efficiencies are fitted to bench/solver_bench measurements on an H100 and validated there over
// the ResNet-50 and DeepBench layers in every direction and precision (docs/performance.md).
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <string_view>

namespace anydnn::cuda {

// Peak rates of one device, from its properties (CudaBackend::rates()).
struct DeviceRates {
  double sms = 1;              // multiprocessors
  double fp32_tflops = 1;      // SIMT fp32, 2 flops per FMA
  double tensor16_tflops = 1;  // dense fp16 / bf16 tensor-core math, fp32 accumulation
  double tf32_tflops = 1;      // dense TF32 tensor-core math
  double dram_gbs = 1;         // DRAM bandwidth, bytes read + written
};

// Which unit a GEMM runs on.
// Tf32x3: fp32 accuracy from three TF32 mma per step (CUTLASS's 3xTF32).
enum class GemmMath { Fp32, Tensor16, Tf32, Tf32x3 };

// Fixed cost of one kernel launch in a sequence of launches on one stream (ms).
inline constexpr double kLaunchMs = 0.004;
// Host-side cost of one iteration of a solver's per-image loop (cuBLAS call set-up), ms.
inline constexpr double kImageLoopMs = 0.0028;
// Multipliers on memory_ms() for passes slower than a stream: im2col's gather, col2im's
// gather over the taps, and the tensor-core solvers' NCHW <-> padded NHWC staging transposes.
inline constexpr double kIm2colFactor = 2.31;
inline constexpr double kCol2imFactor = 1.95;
inline constexpr double kStagingFactor = 1.36;
// Per-direction efficiency of the CUTLASS kernels relative to kCutlassEfficiency (fitted).
inline constexpr double kCutlassFpropEfficiency = 0.595;
inline constexpr double kCutlassDgradEfficiency = 0.72;
inline constexpr double kCutlassWgradEfficiency = 0.425;

// The im2col / col2im solvers' column matrix (one image's worth) past kColumnKneeBytes: the
// pass's scattered writes and the GEMM's reads of it stop hitting L2, and each MB more costs
// kColumnMsPerMb. Fitted to the 2026-11-25 sweep, where the measured / modelled time of
// GemmFwdRest grew from 1.1 at 7 MB to 2.4 at 64 MB (n16 c64 80x350 3x3: 5.0 ms against 2.1).
inline constexpr double kColumnKneeBytes = 8e6;
inline constexpr double kColumnMsPerMb = 0.003;
inline double column_buffer_ms(double column_bytes) {
  return column_bytes > kColumnKneeBytes ? (column_bytes - kColumnKneeBytes) * 1e-6 * kColumnMsPerMb
                                         : 0.0;
}

// A pass that moves `bytes` through DRAM (ms, launch included).
double memory_ms(const DeviceRates& r, double bytes);

// A cuBLAS GEMM C[m x n] (+)= A[m x k] B[k x n], `batch` of them in one call, operands of
// `in_bytes` per element and C of `out_bytes` (ms, launch included).
double cublas_gemm_ms(const DeviceRates& r, GemmMath math, double m, double n, double k,
                      double batch, double in_bytes, double out_bytes);

// A CUTLASS implicit-GEMM convolution kernel: GEMM m x n x k in tile_m x tile_n blocks,
// `blocks_per_sm` resident at a time, each k-slice (split-K) its own block, at `efficiency`
// (one of the kCutlass*Efficiency) (ms, launch included). k counts what the kernel iterates:
// CUTLASS walks the filter taps times the channels rounded up to its k tile.
double cutlass_conv_ms(const DeviceRates& r, GemmMath math, double m, double n, double k,
                       double tile_m, double tile_n, double blocks_per_sm, double slices,
                       double efficiency);

// The direct fp32 kernel (ConvDirectFwdCuda): `blocks` thread blocks, each walking `channels`
// input channels, staging `patch_elements` input values and applying `taps` filter taps per
// channel.
double direct_fp32_ms(const DeviceRates& r, double blocks, double channels, double patch_elements,
                      double taps);

// The structural model of `solver` corrected by its fitted calibration for the problem's math
// (fp32, fp32 with TF32 allowed, fp16 / bf16): a factor and a fixed cost per solver, fitted to a
// sweep of every ResNet-50 and DeepBench layer (docs/find-and-heuristics.md). They absorb what
// the structure leaves out, e.g. that cuBLAS runs thin 1x1 backward GEMMs faster than its tile
// model says, or the tensor-core solvers' extra launches and staging on small problems.
double calibrated_ms(std::string_view solver, miopenDataType_t type, bool tf32, double model_ms);

}  // namespace anydnn::cuda
