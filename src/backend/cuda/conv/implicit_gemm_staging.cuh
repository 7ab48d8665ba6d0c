// Staging for the CUTLASS implicit-GEMM solvers (implicit_gemm_tc_util.cuh, 2.x kernels, and
// implicit_gemm_wgmma_util.cuh, sm90 kernels): CUTLASS wants every operand packed NHWC (weights
// KRSC) with channel counts that are multiples of its 128-bit access width; anything else is
// copied into the workspace in that form (transposed and zero-padded) and the output copied
// back. Also the checks every CUTLASS solver makes before asking CUTLASS itself.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cuda::tc {

inline size_t alignment_of(miopenDataType_t t) {
  return t == miopenFloat ? 4 : 8;
}

inline size_t round_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

// --- staging: NCHW <-> NHWC and channel padding ----------------------------------------------

// out[b][s][r] = in[b][r][s] for b < B, r < R, s < S, where in[b][r][s] is at
// in + (b * R + r) * in_ld + s and out[b][s][r] at out + (b * S + s) * out_ld + r. Rows
// r in [R, R_out) (R_out <= out_ld) are written as zeros: the padded channels. NCHW -> NHWC is
// (B, R, S) = (N, C, HW), NHWC -> NCHW is (N, HW, C), KCYX -> KYXC is (K, C, YX). Elements are
// moved as raw bits (all-zero bits are 0.0 in fp16, bf16 and fp32).
template <class T>
__global__ void transpose_batched_kernel(const T* __restrict__ in, T* __restrict__ out, long long B,
                                         long long R, long long S, long long in_ld,
                                         long long out_ld, long long R_out) {
  __shared__ T tile[32][33];  // +1 column: the column reads hit distinct banks
  const long long tiles_r = (R_out + 31) / 32;
  const long long tiles_s = (S + 31) / 32;
  for (long long b = blockIdx.z; b < B; b += gridDim.z) {
    const T* src = in + b * R * in_ld;
    T* dst = out + b * S * out_ld;
    for (long long tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
      for (long long ts = blockIdx.x; ts < tiles_s; ts += gridDim.x) {
        const long long s = ts * 32 + threadIdx.x;
        for (int i = threadIdx.y; i < 32; i += blockDim.y) {
          const long long r = tr * 32 + i;
          if (r < R_out && s < S) tile[i][threadIdx.x] = r < R ? src[r * in_ld + s] : T(0);
        }
        __syncthreads();
        const long long r = tr * 32 + threadIdx.x;
        for (int i = threadIdx.y; i < 32; i += blockDim.y) {
          const long long s2 = ts * 32 + i;
          if (r < R_out && s2 < S) dst[s2 * out_ld + r] = tile[threadIdx.x][i];
        }
        __syncthreads();
      }
    }
  }
}

inline void transpose_batched(const void* in, void* out, size_t B, size_t R, size_t S, size_t in_ld,
                              size_t out_ld, size_t R_out, size_t elem_bytes, cudaStream_t stream) {
  if (B == 0 || R_out == 0 || S == 0) return;
  const size_t tiles_r = (R_out + 31) / 32, tiles_s = (S + 31) / 32;
  const dim3 grid(static_cast<unsigned>(std::min<size_t>(tiles_s, 1u << 30)),
                  static_cast<unsigned>(std::min<size_t>(tiles_r, 65535)),
                  static_cast<unsigned>(std::min<size_t>(B, 65535)));
  const dim3 block(32, 8);
  const auto ll = [](size_t v) { return static_cast<long long>(v); };
  if (elem_bytes == 2) {
    transpose_batched_kernel<uint16_t>
        <<<grid, block, 0, stream>>>(static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out),
                                     ll(B), ll(R), ll(S), ll(in_ld), ll(out_ld), ll(R_out));
  } else {
    transpose_batched_kernel<uint32_t>
        <<<grid, block, 0, stream>>>(static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out),
                                     ll(B), ll(R), ll(S), ll(in_ld), ll(out_ld), ll(R_out));
  }
  ANYDNN_CUDA_LAUNCHED("tensor-core conv: NCHW/NHWC transpose");
}

// out (packed rows_out x cols_out) = in (rows_in x cols_in, row stride ld_in), zero outside:
// pads the channels (and weight rows) of an NHWC tensor, or drops them again.
template <class T>
__global__ void pad_copy_kernel(const T* __restrict__ in, T* __restrict__ out, long long rows_in,
                                long long cols_in, long long ld_in, long long rows_out,
                                long long cols_out) {
  const long long total = rows_out * cols_out;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const long long r = i / cols_out, c = i - r * cols_out;
    out[i] = r < rows_in && c < cols_in ? in[r * ld_in + c] : T(0);
  }
}

inline void pad_copy(const void* in, void* out, size_t rows_in, size_t cols_in, size_t ld_in,
                     size_t rows_out, size_t cols_out, size_t elem_bytes, cudaStream_t stream) {
  const size_t total = rows_out * cols_out;
  if (total == 0) return;
  const unsigned grid = static_cast<unsigned>(std::min<size_t>((total + 255) / 256, 1u << 20));
  const auto ll = [](size_t v) { return static_cast<long long>(v); };
  if (elem_bytes == 2) {
    pad_copy_kernel<uint16_t>
        <<<grid, 256, 0, stream>>>(static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out),
                                   ll(rows_in), ll(cols_in), ll(ld_in), ll(rows_out), ll(cols_out));
  } else {
    pad_copy_kernel<uint32_t>
        <<<grid, 256, 0, stream>>>(static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out),
                                   ll(rows_in), ll(cols_in), ll(ld_in), ll(rows_out), ll(cols_out));
  }
  ANYDNN_CUDA_LAUNCHED("tensor-core conv: channel padding");
}

// One operand as the user holds it, [rows][c][hw] (NCHW) or [rows][hw][c] (NHWC), and as
// CUTLASS sees it, [rows_p][hw][cp]. rows is N (x, y) or K (the weights, padded to Kp).
struct Operand {
  bool nchw = false;
  size_t rows = 0, rows_p = 0;
  size_t c = 0, cp = 0;
  size_t hw = 0;
  // Whether CUTLASS needs a copy in the workspace; otherwise the user's buffer is used in place.
  bool staged() const { return nchw || c != cp || rows != rows_p; }
  size_t staged_elements() const { return rows_p * hw * cp; }
};

// User layout -> the padded NHWC copy (every element of it written, padding as zeros).
inline void stage_in(const Operand& o, const void* user, void* staged, size_t elem,
                     cudaStream_t stream) {
  if (o.nchw) {
    transpose_batched(user, staged, o.rows, o.c, o.hw, o.hw, o.cp, o.cp, elem, stream);
    if (o.rows_p > o.rows) {  // the padded weight rows (K -> Kp)
      const size_t done = o.rows * o.hw * o.cp * elem;
      check_cuda(cudaMemsetAsync(static_cast<char*>(staged) + done, 0,
                                 o.staged_elements() * elem - done, stream),
                 "tensor-core conv: weight padding");
    }
  } else {
    pad_copy(user, staged, o.rows * o.hw, o.c, o.c, o.rows_p * o.hw, o.cp, elem, stream);
  }
}

// The padded NHWC copy -> user layout (real rows and channels only).
inline void stage_out(const Operand& o, const void* staged, void* user, size_t elem,
                      cudaStream_t stream) {
  if (o.nchw)
    transpose_batched(staged, user, o.rows, o.hw, o.c, o.cp, o.hw, o.hw, elem, stream);
  else
    pad_copy(staged, user, o.rows * o.hw, o.c, o.cp, o.rows * o.hw, o.c, elem, stream);
}

// --- problem checks and mapping --------------------------------------------------------------

// The memory order of one operand as CUTLASS sees it.
enum class Order { Nhwc, Nchw, Other };

inline Order order_of(const TensorDescriptor& t) {
  const bool three_d = t.lens().size() == 5;
  // Channels last also wins when both match (C or the spatial size 1).
  if (t.is_packed_layout(three_d ? "NDHWC" : "NHWC")) return Order::Nhwc;
  if (t.is_packed_layout(three_d ? "NCDHW" : "NCHW")) return Order::Nchw;
  return Order::Other;
}

// Which arithmetic a CUTLASS kernel does, which decides the types it takes and the switches that
// gate it: tensor-op (fp16, bf16; fp32 as TF32 only with ANYDNN_CONV_ALLOW_TF32=1), 3xTF32 (fp32
// only, near fp32 accuracy: TF32's switch does not concern it, its own does,
// Config::conv_allow_3xtf32), or fp32 on CUDA cores (fp32 only, strict fp32: no switch).
enum class KernelMath { TensorOp, Tf32x3, SimtFp32 };

// What every direction checks before asking CUTLASS.
// spatial_dims: the kernel's (the 2.x kernels are 2-D; the sm90 ones come as 2-D and 3-D).
inline Applicability check_common(const ExecutionContext& ctx, const ConvProblem& p,
                                  ConvDirection dir, KernelMath math, int spatial_dims = 2) {
  ANYDNN_REJECT_IF(p.direction() != dir, std::string("not a ") + direction_name(dir) + " problem");
  const miopenDataType_t t = p.data_type();
  if (math == KernelMath::SimtFp32) {
    ANYDNN_REJECT_IF(t != miopenFloat, "data type is not fp32 (the fp32 CUDA-core kernel)");
  } else if (math == KernelMath::Tf32x3) {
    ANYDNN_REJECT_IF(t != miopenFloat, "data type is not fp32 (the 3xTF32 kernel)");
    ANYDNN_REJECT_IF(!ctx.config.conv_allow_3xtf32,
                     "3xTF32 not allowed (ANYDNN_CONV_3XTF32=1): 1.6-2.2x SGEMM's error");
  } else {
    ANYDNN_REJECT_IF(t != miopenHalf && t != miopenBFloat16 && t != miopenFloat,
                     "data type is not fp16, bf16 or fp32");
    ANYDNN_REJECT_IF(t == miopenFloat && !ctx.config.conv_allow_tf32,
                     "TF32 not allowed (ANYDNN_CONV_ALLOW_TF32=1)");
  }
  ANYDNN_REJECT_IF(backend_of(ctx).sm_version() < 80,
                   "needs sm_80 or newer (tensor cores, asynchronous copies)");
  ANYDNN_REJECT_IF(p.spatial_dims() != spatial_dims,
                   spatial_dims == 2 ? "only 2-D convolutions" : "only 3-D convolutions");
  ANYDNN_REJECT_IF(p.groups() != 1, "groups > 1");
  // An empty output (a filter larger than the padded input) or input: CUTLASS divides by the
  // output extents when it builds its parameters.
  ANYDNN_REJECT_IF(
      p.x().element_count() == 0 || p.y().element_count() == 0 || p.w().element_count() == 0,
      "an empty tensor (the filter is larger than the padded input?)");
  ANYDNN_REJECT_IF(p.pads()[0] < 0 || p.pads()[1] < 0 || p.pads()[2] < 0, "negative padding");
  for (const TensorDescriptor* d : {&p.x(), &p.w(), &p.y()})
    ANYDNN_REJECT_IF(order_of(*d) == Order::Other,
                     "a tensor is neither packed channels-first (NCHW) nor channels-last (NHWC)");
  // CUTLASS indexes with int (its can_implement bounds the byte sizes to 2 GiB as well); the
  // padded copies are what it indexes.
  constexpr size_t kIntMax = static_cast<size_t>(std::numeric_limits<int>::max());
  const size_t a = alignment_of(t);
  const size_t cp = round_up(p.in_channels(), a), kp = round_up(p.out_channels(), a);
  const auto count = [](const TensorDescriptor& d, size_t channels) {
    return d.element_count() / std::max<size_t>(d.lens()[1], 1) * channels;
  };
  ANYDNN_REJECT_IF(count(p.x(), cp) > kIntMax || count(p.y(), kp) > kIntMax ||
                       count(p.w(), cp) / std::max<size_t>(p.out_channels(), 1) * kp > kIntMax,
                   "a tensor has more than 2^31 elements");
  return Applicability::yes();
}

// Workspace offsets: each part starts 256-byte aligned (the workspace comes from cudaMalloc).
inline size_t align_up(size_t v) {
  return (v + 255) / 256 * 256;
}

}  // namespace anydnn::cuda::tc
