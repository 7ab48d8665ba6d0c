// Cost models of the CUDA convolution solvers (cost_model.hpp). The efficiencies below are
// fractions of the device's peak that each kind of kernel reaches at full occupancy, fitted to
// bench/solver_bench runs on an H100 (docs/performance.md, "Cost models"); everything that makes
// a problem slower than that (partial waves, small tiles, launches, memory) is modelled.
#include "backend/cuda/conv/cost_model.hpp"

#include <algorithm>
#include <cmath>

namespace anydnn::cuda {

namespace {

// Fitted by scripts/dev/fit_cost_model.py (its Python mirror of this file) to solver_bench
// sweeps of every ResNet-50 and DeepBench layer, three directions, fp32 / TF32 / fp16 / bf16
// NCHW, on an H100 (docs/find-and-heuristics.md). Efficiencies are fractions of the peaks in
// DeviceRates; the tile exponents price cuBLAS's smaller tiles for thin matrices.
constexpr double kMemoryEfficiency = 0.80;
constexpr double kCublasFp32Efficiency = 0.78;
constexpr double kCublasTensorEfficiency = 0.21;
constexpr double kCublasFp32TilePower = 0.21;
constexpr double kCublasTensorTilePower = 1.65;
// TF32 (fp32 GEMMs with TF32 allowed), fitted to the 2026-11-25 TF32 sweep: cuBLAS's TF32
// kernels keep more of their rate on thin matrices than its fp16 ones.
constexpr double kCublasTf32Efficiency = 0.42;
constexpr double kCublasTf32TilePower = 0.5;
constexpr double kCutlassEfficiency = 0.90;
// The direct kernel, per block and input channel: staging a patch element (per 256 threads)
// and one filter tap (16 FMAs per thread), plus a fixed cost per block (ns).
constexpr double kDirectPatchNs = 119.0;
constexpr double kDirectTapNs = 51.0;
constexpr double kDirectBlockNs = 546.0;

double peak_flops(const DeviceRates& r, GemmMath math) {
  switch (math) {
    case GemmMath::Fp32:
      return r.fp32_tflops * 1e12;
    case GemmMath::Tensor16:
      return r.tensor16_tflops * 1e12;
    case GemmMath::Tf32:
      return r.tf32_tflops * 1e12;
    case GemmMath::Tf32x3:
      return r.tf32_tflops * 1e12 / 3.0;
  }
  return r.fp32_tflops * 1e12;
}

double bytes_ms(const DeviceRates& r, double bytes) {
  return bytes / (r.dram_gbs * 1e9 * kMemoryEfficiency) * 1e3;
}

// The tile edge cuBLAS's heuristics pick for a GEMM dimension: 128 where it fills one, smaller
// for thin matrices.
double tile_for(double dim) {
  return dim >= 128 ? 128 : dim >= 64 ? 64 : 32;
}

}  // namespace

double memory_ms(const DeviceRates& r, double bytes) {
  return bytes_ms(r, bytes) + kLaunchMs;
}

double cublas_gemm_ms(const DeviceRates& r, GemmMath math, double m, double n, double k,
                      double batch, double in_bytes, double out_bytes) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return kLaunchMs;
  const double tm = tile_for(m), tn = tile_for(n);
  // Smaller tiles reuse each loaded value less: lower throughput per SM.
  const double power = math == GemmMath::Fp32   ? kCublasFp32TilePower
                       : math == GemmMath::Tf32 ? kCublasTf32TilePower
                                                : kCublasTensorTilePower;
  const double tile_eff = std::max(std::pow(tm * tn / (128.0 * 128.0), power), 0.1);
  const double eff = (math == GemmMath::Fp32   ? kCublasFp32Efficiency
                      : math == GemmMath::Tf32 ? kCublasTf32Efficiency
                                               : kCublasTensorEfficiency) *
                     tile_eff;
  double blocks = std::ceil(m / tm) * std::ceil(n / tn) * batch;
  // cuBLAS splits a long k over several blocks when the output tiles cannot fill the device.
  double split = 1;
  if (blocks < r.sms && k >= 512) split = std::min(std::floor(r.sms / blocks), std::floor(k / 256));
  split = std::max(split, 1.0);
  blocks *= split;
  const double per_sm = peak_flops(r, math) * eff / r.sms;
  const double waves = std::ceil(blocks / r.sms);
  const double compute_ms = waves * 2.0 * tm * tn * (k / split) / per_sm * 1e3;
  double bytes = batch * ((m * k + k * n) * in_bytes + m * n * out_bytes);
  if (split > 1) bytes += 2.0 * split * batch * m * n * 4.0;  // partial sums written and read
  return std::max(compute_ms, bytes_ms(r, bytes)) + kLaunchMs * (split > 1 ? 2 : 1);
}

double cutlass_conv_ms(const DeviceRates& r, GemmMath math, double m, double n, double k,
                       double tile_m, double tile_n, double blocks_per_sm, double slices,
                       double efficiency) {
  slices = std::max(slices, 1.0);
  const double blocks = std::ceil(m / tile_m) * std::ceil(n / tile_n) * slices;
  const double resident = r.sms * std::max(blocks_per_sm, 1.0);
  const double waves = std::ceil(blocks / resident);
  // One resident block's share of the device's rate.
  const double per_block = peak_flops(r, math) * kCutlassEfficiency * efficiency / resident;
  const double compute_ms = waves * 2.0 * tile_m * tile_n * std::ceil(k / slices) / per_block * 1e3;
  return compute_ms + kLaunchMs;
}

double calibrated_ms(std::string_view solver, miopenDataType_t type, bool tf32, double model_ms) {
  // Fitted by coordinate search (factors 0.7-1.45, fixed costs 0-12 us) on the measured
  // solver_bench sweeps of 2026-11-25 (1,356 problems; TF32 again once the cuBLAS solvers ran on
  // TF32 tensor cores): immediate mode's first choice more than 1.2x slower than the fastest
  // solver on 17 problems before, 7 after; TF32 alone 16 -> 2 of 351.
  struct Row {
    std::string_view solver;
    int math;  // 1 TF32 allowed, 2 fp16 / bf16
    double factor, fixed_ms;
  };
  static constexpr Row kRows[] = {
      {"GemmBwd1x1_stride1", 2, 0.8, 0.0},
      {"GemmFwdRest", 2, 0.9, 0.0},
      {"GemmWrwUniversal", 2, 1.1, 0.0},
      {"ImplicitGemmTensorCoreBwd", 2, 0.8, 0.008},
      {"ImplicitGemmTensorCoreBwdS1", 2, 0.8, 0.008},  // the same kernel family, stride 1
      {"ImplicitGemmTensorCoreFwd", 2, 0.9, 0.012},
      // TF32 (2026-11-25 TF32 sweep, cuBLAS on TF32 tensor cores): im2col / col2im passes
      // around a fast GEMM cost more than their byte count says.
      {"GemmFwdRest", 1, 1.45, 0.0},
      {"GemmBwdRest", 1, 1.1, 0.0},
      // Strict fp32, once the CUDA-core implicit GEMM (ImplicitGemmSimt*) joined: the solver_bench
      // sweep of 2026-12-07 (339 ResNet-50 and DeepBench problems, H100, NCHW): im2col + SGEMM
      // and the direct kernel run slower than their models against it; immediate mode's first
      // choice more than 1.2x slower than the fastest solver on 36 problems before, 1 after
      // (fitted on DeepBench alone, ResNet-50 went from 5 to 0).
      {"GemmFwdRest", 0, 2.0, 0.0},
      {"GemmBwdRest", 0, 1.8, 0.0},
      {"GemmWrwUniversal", 0, 1.6, 0.0},
      {"ConvDirectFwdCuda", 0, 1.25, 0.0},
      // 16-bit backward weights once the sm90 wgrad took every filter with its split-K and the
      // channels-last 1x1 GEMM joined: the fp16 NHWC ResNet-50 sweep of 2026-12-07 (23 layers,
      // H100; bench/results/solver-sweep-fp16-bwdw-h100-2026-12-07.csv): immediate mode's first
      // choice more than 1.2x slower than the fastest solver on 6 layers before (the 2.x wgrad
      // on the 1x1 layers, 1.9-2.3x), 0 after.
      {"ImplicitGemmTensorCoreWrw", 2, 1.5, 0.0},
      {"ImplicitGemmTensorCoreWrwSerial", 2, 1.2, 0.0},
      {"GemmWrw1x1Nhwc", 2, 1.2, 0.0},
      {"ImplicitGemmWgmmaWrw128x64", 2, 0.9, 0.0},
      {"ImplicitGemmWgmmaWrw64x128", 2, 0.9, 0.0},
  };
  const int math = type == miopenFloat ? (tf32 ? 1 : 0) : 2;
  for (const Row& row : kRows)
    if (row.math == math && row.solver == solver) return model_ms * row.factor + row.fixed_ms;
  return model_ms;
}

double direct_fp32_ms(const DeviceRates& r, double blocks, double channels, double patch_elements,
                      double taps) {
  const double per_block_ns =
      channels * (kDirectPatchNs * patch_elements / 256.0 + kDirectTapNs * taps) + kDirectBlockNs;
  return blocks * per_block_ns * 1e-6 / r.sms + kLaunchMs;
}

}  // namespace anydnn::cuda
