// What each convolution solver is meant for: the promise its per-solver test holds it to. Every
// problem of the shared lists (tests/problems/conv_problems.txt) that a solver's promise covers
// must be accepted by its applicable(), so a solver that turns itself off (Winograd or FFT
// rejecting 3x3 stride-1 fp32, a GEMM solver rejecting packed NCHW) fails its test instead of
// silently handing its problems to the fallbacks. Shared by the CPU and CUDA per-solver tests;
// the tensor-core solvers' promises live in gpu/implicit_gemm_tc_gpu_test.cpp (AppliesFirst).
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "conv/conv_problem.hpp"

namespace anydnn::test {

// nullopt: the solver makes no promise beyond taking some problem of the list.
inline std::optional<bool> solver_meant_for(std::string_view s, const ConvProblem& p) {
  const bool fwd = p.direction() == ConvDirection::Forward;
  const bool bwd = p.direction() == ConvDirection::BackwardData;
  const bool wrw = p.direction() == ConvDirection::BackwardWeights;
  const bool two_d = p.spatial_dims() == 2;
  const std::string nchw = two_d ? "NCHW" : "NCDHW";
  const bool packed =
      p.x().is_packed_layout(nchw) && p.w().is_packed_layout(nchw) && p.y().is_packed_layout(nchw);
  const bool fp32 = p.data_type() == miopenFloat;
  const bool one_by_one = p.filter_size() == (std::array<size_t, 3>{1, 1, 1}) &&
                          p.strides() == (std::array<int, 3>{1, 1, 1}) &&
                          p.pads() == (std::array<int, 3>{0, 0, 0});
  const bool unit_2d = two_d && p.strides()[1] == 1 && p.strides()[2] == 1 &&
                       p.dilations()[1] == 1 && p.dilations()[2] == 1;
  const bool depthwise = two_d && p.groups() > 1 && p.groups() == p.in_channels() && packed;
  const bool winograd = packed && fp32 && unit_2d && p.groups() == 1 && p.filter_size()[1] == 3 &&
                        p.filter_size()[2] == 3;
  const bool fft =
      packed && fp32 && unit_2d && p.groups() == 1 && p.filter_size()[1] * p.filter_size()[2] >= 9;
  // Every problem of its direction, whatever the layout, strides or type.
  if (s == "ConvDirectNaiveConvFwd") return fwd;
  if (s == "ConvDirectNaiveConvBwd") return bwd;
  if (s == "ConvDirectNaiveConvWrw") return wrw;
  // Every packed NCHW / NCDHW problem; the 1x1 variants the 1x1 stride-1 unpadded ones.
  if (s == "GemmFwdRest") return fwd && packed;
  if (s == "GemmBwdRest") return bwd && packed;
  if (s == "GemmWrwUniversal") return wrw && packed;
  if (s == "GemmFwd1x1_0_1") return fwd && packed && one_by_one;
  if (s == "GemmBwd1x1_stride1") return bwd && packed && one_by_one;
  if (s == "GemmWrw1x1_stride1") return wrw && packed && one_by_one;
  // Channels-last 1x1 stride 1 (CUDA): one GEMM over every image, any float type, no groups.
  const std::string nhwc = two_d ? "NHWC" : "NDHWC";
  const bool channels_last_1x1 = p.x().is_packed_layout(nhwc) && p.y().is_packed_layout(nhwc) &&
                                 p.w().is_packed() && one_by_one && p.groups() == 1;
  if (s == "GemmFwd1x1Nhwc") return fwd && channels_last_1x1;
  if (s == "GemmBwd1x1Nhwc") return bwd && channels_last_1x1;
  if (s == "GemmWrw1x1Nhwc") return wrw && channels_last_1x1;
  // The CPU's fp32 fast paths: every packed fp32 problem of their direction (2-D for some).
  if (s == "ImplicitGemmFwd" || s == "ImplicitGemmChannelFwd") return fwd && packed && fp32;
  if (s == "ImplicitGemmShiftedFwd") return fwd && packed && fp32 && two_d;
  if (s == "ImplicitGemmBwd") return bwd && packed && fp32;
  if (s == "ImplicitGemmWrw") return wrw && packed && fp32;
  if (s == "ImplicitGemmShiftedWrw") return wrw && packed && fp32 && two_d;
  if (s == "ConvDepthwiseFwd") return fwd && depthwise;
  if (s == "ConvDepthwiseBwd") return bwd && depthwise;
  if (s == "ConvDepthwiseWrw") return wrw && depthwise;
  // 3x3 stride-1 fp32 (backward data pads dy by 2 - pad, so pad <= 2).
  if (s == "WinogradF4x3Fwd") return fwd && winograd;
  if (s == "WinogradF4x3Bwd") return bwd && winograd && p.pads()[1] <= 2 && p.pads()[2] <= 2;
  // Stride-1 fp32 filters of 3x3 area or more (the shared lists' images fit one FFT frame).
  if (s == "ConvFftFwd") return fwd && fft;
  if (s == "ConvFftBwd") return bwd && fft;
  if (s == "ConvFftWrw") return wrw && fft;
  // CUDA's tiled direct kernel: every packed fp32 2-D forward problem.
  if (s == "ConvDirectFwdCuda") return fwd && packed && fp32 && two_d;
  // The 3xTF32 CUTLASS kernels (fp32 at fp32 accuracy): every packed NCHW fp32 2-D ungrouped
  // problem with filters up to 32x32 (forward, backward weights) and no dilation (backward
  // data: CUTLASS's strided dgrad kernel); the problem's own layout NHWC is covered by
  // gpu/implicit_gemm_3xtf32_gpu_test.cpp.
  const bool tc32 =
      packed && fp32 && two_d && p.groups() == 1 && p.pads()[1] >= 0 && p.pads()[2] >= 0;
  const bool small_filter = p.filter_size()[1] <= 32 && p.filter_size()[2] <= 32;
  if (s == "ImplicitGemm3xTf32Fwd") return fwd && tc32 && small_filter;
  if (s == "ImplicitGemm3xTf32Bwd")
    return bwd && tc32 && small_filter && p.dilations()[1] == 1 && p.dilations()[2] == 1;
  if (s == "ImplicitGemm3xTf32Wrw") return wrw && tc32;
  // The CUTLASS CUDA-core fp32 kernels: the same problems (strict fp32, no switch needed).
  if (s == "ImplicitGemmSimtFwd") return fwd && tc32 && small_filter;
  if (s == "ImplicitGemmSimtBwd")
    return bwd && tc32 && small_filter && p.dilations()[1] == 1 && p.dilations()[2] == 1;
  if (s == "ImplicitGemmSimtWrw") return wrw && tc32;
  // cuDNN's engines (CudnnConv*, libcudnn found at run time): at least every 2-D ungrouped
  // float / half / bfloat16 problem on packed NCHW or NHWC; the rest is tested where it applies.
  const bool packed_2d =
      two_d && (packed || (p.x().is_packed_layout("NHWC") && p.w().is_packed_layout("NHWC") &&
                           p.y().is_packed_layout("NHWC")));
  const bool cudnn_type = fp32 || p.data_type() == miopenHalf || p.data_type() == miopenBFloat16;
  // cuDNN refuses a filter wider than the padded input (MIOpen computes an empty output).
  bool fits = true;
  for (int i = 1; i < 3; ++i)
    fits = fits && p.in_size()[i] + 2 * static_cast<size_t>(std::max(p.pads()[i], 0)) >=
                       static_cast<size_t>(p.dilations()[i]) * (p.filter_size()[i] - 1) + 1;
  const bool cudnn_2d =
      packed_2d && cudnn_type && p.groups() == 1 && p.pads()[1] >= 0 && p.pads()[2] >= 0 && fits;
  if (s == "CudnnConvFwd") return fwd && cudnn_2d;
  if (s == "CudnnConvBwd") return bwd && cudnn_2d;
  if (s == "CudnnConvWrw") return wrw && cudnn_2d;
  return std::nullopt;
}

}  // namespace anydnn::test
