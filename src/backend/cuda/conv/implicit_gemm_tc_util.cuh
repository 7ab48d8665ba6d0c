// Shared part of the tensor-core implicit-GEMM solvers (implicit_gemm_tc_{fwd,bwd,bwd_s1,
// bwd_narrow,wrw}.cu): CUTLASS 2.x implicit-GEMM convolutions (Sm80 tensor ops, fp32
// accumulation) on NHWC tensors. About 600 lines in one header on purpose: the solver template,
// its workspace plan, the staging kernels and CUTLASS's argument builders must agree on the same
// padded layouts, and every solver file instantiates all of them.
//
// CUTLASS wants every operand packed NHWC (weights KRSC) with channel counts that are
// multiples of its 128-bit access width. A packed NHWC tensor with aligned channels is used in
// place; any other one (packed NCHW, or channels not a multiple of the width) is staged in the
// workspace as NHWC with the channel count rounded up and the extra channels zero: an input is
// copied in, the output is written there and copied back (real channels only). The zero input
// channels add nothing to any sum, so the result is exact. The three solvers differ only in the
// CUTLASS kernel and in which tensors are its A, B and C operands; TcSolver holds everything
// else. Backward weights also splits its long reduction (N*P*Q) over several thread blocks
// (CUTLASS's parallel split-K plus a reduction kernel, both in a fixed order). Forward also
// takes a fused chain's epilogue (implicit_gemm_tc_epilogue.hpp: CUTLASS's output stage, or the
// copy back of a staged fp32 output).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "backend/cuda/conv/conv_epilogue.hpp"
#include "backend/cuda/conv/cost_model.hpp"
#include "backend/cuda/conv/implicit_gemm_tc_epilogue.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "cutlass/conv/conv2d_problem_size.h"
#include "cutlass/conv/convolution.h"
#include "cutlass/conv/device/implicit_gemm_convolution.h"
#include "cutlass/conv/threadblock/threadblock_swizzle.h"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/gemm/threadblock/threadblock_swizzle.h"
#include "cutlass/layout/tensor.h"
#include "cutlass/matrix_shape.h"
#include "cutlass/numeric_types.h"
#include "cutlass/reduction/device/reduce_split_k.h"
#include "cutlass/reduction/kernel/reduce_split_k.h"
#include "cutlass/reduction/thread/reduction_operators.h"
#include "solver/conv_solver.hpp"

namespace anydnn::cuda::tc {

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

// 128-bit accesses: the channel counts CUTLASS sees must be multiples of this (8 for 16-bit,
// 4 for fp32); others are padded up to it in the workspace.
template <class E>
inline constexpr int kAlignment = 128 / cutlass::sizeof_bits<E>::value;

inline size_t alignment_of(miopenDataType_t t) {
  return t == miopenFloat ? 4 : 8;
}

inline size_t round_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

// alpha * accumulator (+ beta * source, beta is always 0 here: the front-end blends).
template <class E>
using Epilogue = cutlass::epilogue::thread::LinearCombination<E, kAlignment<E>, float, float>;

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
  if (t.is_packed_layout("NHWC")) return Order::Nhwc;  // also wins when both match (C or HW 1)
  if (t.is_packed_layout("NCHW")) return Order::Nchw;
  return Order::Other;
}

// What every direction checks before asking CUTLASS.
// exact_fp32: a 3xTF32 kernel, fp32 only, near fp32 accuracy: TF32's switch does not concern
// it, its own does (Config::conv_allow_3xtf32).
inline Applicability check_common(const ExecutionContext& ctx, const ConvProblem& p,
                                  ConvDirection dir, bool exact_fp32) {
  ANYDNN_REJECT_IF(p.direction() != dir, std::string("not a ") + direction_name(dir) + " problem");
  const miopenDataType_t t = p.data_type();
  if (exact_fp32) {
    ANYDNN_REJECT_IF(t != miopenFloat, "data type is not fp32 (the 3xTF32 kernel)");
    ANYDNN_REJECT_IF(!ctx.config.conv_allow_3xtf32,
                     "3xTF32 not allowed (ANYDNN_CONV_3XTF32=1): 1.6-2.2x SGEMM's error");
  } else {
    ANYDNN_REJECT_IF(t != miopenHalf && t != miopenBFloat16 && t != miopenFloat,
                     "data type is not fp16, bf16 or fp32");
    ANYDNN_REJECT_IF(t == miopenFloat && !ctx.config.conv_allow_tf32,
                     "TF32 not allowed (ANYDNN_CONV_ALLOW_TF32=1)");
  }
  ANYDNN_REJECT_IF(backend_of(ctx).sm_version() < 80, "needs sm_80 or newer tensor cores");
  ANYDNN_REJECT_IF(p.spatial_dims() != 2, "only 2-D convolutions");
  ANYDNN_REJECT_IF(p.groups() != 1, "groups > 1");
  ANYDNN_REJECT_IF(p.pads()[1] < 0 || p.pads()[2] < 0, "negative padding");
  for (const TensorDescriptor* d : {&p.x(), &p.w(), &p.y()})
    ANYDNN_REJECT_IF(order_of(*d) == Order::Other, "a tensor is neither packed NCHW nor NHWC");
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

// CUTLASS's problem for channel counts c and k (padded) and the given split-K slices.
inline cutlass::conv::Conv2dProblemSize problem_size(const ConvProblem& p, size_t c, size_t k,
                                                     int split_k_slices) {
  const auto i = [](size_t v) { return static_cast<int>(v); };
  return cutlass::conv::Conv2dProblemSize(
      i(p.batch()), i(p.in_size()[1]), i(p.in_size()[2]), i(c), i(k), i(p.filter_size()[1]),
      i(p.filter_size()[2]), i(p.out_size()[1]), i(p.out_size()[2]), p.pads()[1], p.pads()[2],
      p.strides()[1], p.strides()[2], p.dilations()[1], p.dilations()[2],
      cutlass::conv::Mode::kCrossCorrelation, split_k_slices, /*groups=*/1);
}

// CUTLASS's arguments for packed NHWC operands at the given pointers; alpha 1, beta 0. Serial
// mode is only used with one slice (no semaphore workspace); parallel mode writes one fp32
// partial result per slice to c, one after another.
template <class Op>
typename Op::Arguments make_arguments(const cutlass::conv::Conv2dProblemSize& ps, const void* a,
                                      const void* b, void* c, cutlass::conv::SplitKMode mode) {
  using namespace cutlass::conv;
  constexpr Operator kOp = Op::kConvolutionalOperator;
  using EA = typename Op::ElementA;
  using EB = typename Op::ElementB;
  using EC = typename Op::ElementC;
  const typename Op::LayoutA la = Op::LayoutA::packed(implicit_gemm_tensor_a_extent(kOp, ps));
  const typename Op::LayoutB lb = Op::LayoutB::packed(implicit_gemm_tensor_b_extent(kOp, ps));
  const typename Op::LayoutC lc = Op::LayoutC::packed(implicit_gemm_tensor_c_extent(kOp, ps));
  auto* pc = static_cast<EC*>(c);
  return typename Op::Arguments(ps, {const_cast<EA*>(static_cast<const EA*>(a)), la},
                                {const_cast<EB*>(static_cast<const EB*>(b)), lb}, {pc, lc},
                                {pc, lc}, typename Op::EpilogueOutputOp::Params(1.0f, 0.0f), mode);
}

// Shared memory one thread block of the kernel needs (96 KiB for every configuration above).
template <class Op>
inline constexpr size_t kSharedBytes = sizeof(typename Op::UnderlyingKernel::SharedStorage);

template <class Op>
Applicability can_implement(const cutlass::conv::Conv2dProblemSize& ps,
                            cutlass::conv::SplitKMode mode) {
  const cutlass::Status s =
      Op::can_implement(make_arguments<Op>(ps, nullptr, nullptr, nullptr, mode));
  if (s == cutlass::Status::kSuccess) return Applicability::yes();
  return Applicability::no(std::string("CUTLASS cannot implement it: ") +
                           cutlass::cutlassGetStatusString(s));
}

// Parallel mode: the fp32 partial results, slices * K * R*S*C * 4 bytes; serial: none.
template <class Op>
size_t cutlass_workspace(const cutlass::conv::Conv2dProblemSize& ps,
                         cutlass::conv::SplitKMode mode) {
  return Op::get_workspace_size(make_arguments<Op>(ps, nullptr, nullptr, nullptr, mode));
}

template <class Op>
void run_cutlass(const cutlass::conv::Conv2dProblemSize& ps, const void* a, const void* b, void* c,
                 cutlass::conv::SplitKMode mode, void* workspace, cudaStream_t stream) {
  Op op;
  const auto args = make_arguments<Op>(ps, a, b, c, mode);
  // With several slices initialize() also zeroes the workspace (the partials in parallel mode).
  cutlass::Status s = op.initialize(args, workspace, stream);
  if (s == cutlass::Status::kSuccess) s = op.run(stream);
  ANYDNN_CHECK(s == cutlass::Status::kSuccess, miopenStatusInternalError,
               "CUTLASS convolution failed: " << cutlass::cutlassGetStatusString(s) << " ("
                                              << cudaGetErrorString(cudaGetLastError()) << ")");
}

// Parallel split-K's reduction: the fp32 partials -> E, 128-bit stores; 4 x 32 threads per block
// (CUTLASS's wgrad example). Every split-K solver (Traits::kSplitK) sums its slices with it.
template <class E>
using SplitKReduction =
    cutlass::reduction::device::ReduceSplitK<cutlass::reduction::kernel::ReduceSplitK<
        cutlass::MatrixShape<4, 32 * kAlignment<E>>, Epilogue<E>,
        cutlass::reduction::thread::ReduceAdd<float, float, kAlignment<E>>>>;

// Sums the slices of parallel split-K (slice after slice, the same order every run) into the
// first `rows` rows of out (row-major, `cols` per row), converted to out's type.
template <class Red>
void run_reduction(size_t rows, size_t cols, size_t partition_stride, int slices,
                   const float* partials, void* out, cudaStream_t stream) {
  using Out = typename Red::ElementOutput;
  const cutlass::layout::RowMajor layout(static_cast<int>(cols));
  auto* o = static_cast<Out*>(out);
  const typename Red::Arguments args(
      cutlass::MatrixCoord(static_cast<int>(rows), static_cast<int>(cols)), slices,
      partition_stride, {const_cast<float*>(partials), layout}, {o, layout}, {o, layout},
      typename Red::OutputOp::Params(1.0f, 0.0f));
  Red red;
  cutlass::Status s = red.initialize(args, nullptr, stream);
  if (s == cutlass::Status::kSuccess) s = red.run(stream);
  ANYDNN_CHECK(s == cutlass::Status::kSuccess, miopenStatusInternalError,
               "CUTLASS split-K reduction failed: " << cudaGetErrorString(cudaGetLastError()));
}

// Split-K slices for a GEMM of m x n outputs summing over k: enough thread blocks for ~2 waves
// on `sms` multiprocessors, each slice keeping at least two k-tiles, at most 64 slices.
inline int split_k_slices(long long m, long long n, long long k, int tile_m, int tile_n, int tile_k,
                          int sms) {
  const long long ctas = ((m + tile_m - 1) / tile_m) * ((n + tile_n - 1) / tile_n);
  if (ctas <= 0) return 1;
  const long long want = (2LL * sms + ctas - 1) / ctas;
  const long long most = std::min<long long>(64, k / (2LL * tile_k));
  return static_cast<int>(std::max<long long>(1, std::min(want, most)));
}

// Calls f(E{}) with E the CUTLASS element of the problem's type (float means TF32).
template <class F>
decltype(auto) dispatch_element(miopenDataType_t type, F&& f) {
  switch (type) {
    case miopenHalf:
      return f(cutlass::half_t{});
    case miopenBFloat16:
      return f(cutlass::bfloat16_t{});
    default:
      return f(float{});
  }
}

// --- the solver ------------------------------------------------------------------------------

// Everything workspace_size and the invoker must agree on: the padded operands, CUTLASS's
// problem (split count included), and where the workspace holds what: the staged copies of
// x, w, y, then CUTLASS's workspace (split-K partials). Each part starts 256-byte aligned (the
// workspace itself comes from cudaMalloc).
struct WorkspacePlan {
  static constexpr size_t kNone = ~size_t{0};
  Operand x, w, y;
  size_t x_at = kNone, w_at = kNone, y_at = kNone;  // offsets of the staged copies
  cutlass::conv::Conv2dProblemSize ps;
  cutlass::conv::SplitKMode mode = cutlass::conv::SplitKMode::kSerial;
  bool reduce = false;  // parallel split-K: fp32 partials at `op`, then the reduction kernel
  size_t op = 0;        // offset of CUTLASS's workspace
  size_t op_bytes = 0;
  size_t total = 0;
};

inline size_t align_up(size_t v) {
  return (v + 255) / 256 * 256;
}

// Per direction (Traits): the name, the kernel per element type (Traits::Op<E>), and which of
// x, w, y are CUTLASS's A, B and C (the output).
//   Forward:         A = x,  B = w, C = y
//   BackwardData:    A = dy, B = w, C = dx
//   BackwardWeights: A = dy, B = x, C = dw
// Traits::kSplitK (backward weights): Op<E> writes fp32 (ElementC = float) and
// SplitKReduction<E> sums its split-K partials into E.
template <class Traits>
class TcSolver : public ConvSolver {
  // Optional traits: kUnitStrideOnly (a kernel built for stride 1 only), kMaxInputChannels and
  // kEfficiency (its efficiency in the cost model, instead of the direction's
  // kCutlass*Efficiency).
  static constexpr bool kUnitStrideOnly = [] {
    if constexpr (requires { Traits::kUnitStrideOnly; }) return Traits::kUnitStrideOnly;
    return false;
  }();
  // kMaxInputChannels: a narrow-tile kernel, for backward data into few channels (its GEMM's N).
  static constexpr size_t kMaxInputChannels = [] {
    if constexpr (requires { Traits::kMaxInputChannels; }) return Traits::kMaxInputChannels;
    return std::numeric_limits<size_t>::max();
  }();
  static constexpr double efficiency(double direction_default) {
    if constexpr (requires { Traits::kEfficiency; }) return Traits::kEfficiency;
    return direction_default;
  }
  // kExactFp32: a 3xTF32 kernel (fp32 only, no TF32 switch; TileConfig3xTf32).
  static constexpr bool kExactFp32 = [] {
    if constexpr (requires { Traits::kExactFp32; }) return Traits::kExactFp32;
    return false;
  }();
  // dispatch_element, but a 3xTF32 solver instantiates its kernel for float only.
  template <class F>
  static decltype(auto) dispatch(miopenDataType_t type, F&& f) {
    if constexpr (kExactFp32)
      return f(float{});
    else
      return dispatch_element(type, std::forward<F>(f));
  }

 public:
  std::string_view name() const override { return Traits::kName; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  // No atomics: each output element (or split-K partial) is summed by one thread block in a
  // fixed order, and the split-K reduction adds the slices in a fixed order: same bits every run.
  bool deterministic() const override { return true; }

  Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const override {
    if (Applicability a = check_common(ctx, p, Traits::kDirection, kExactFp32); !a) return a;
    // What can_implement would refuse, with a clearer reason; it still has the last word.
    ANYDNN_REJECT_IF(Traits::kDirection != ConvDirection::BackwardWeights &&
                         (p.filter_size()[1] > 32 || p.filter_size()[2] > 32),
                     "filter larger than 32x32");
    ANYDNN_REJECT_IF(Traits::kDirection == ConvDirection::BackwardData &&
                         (p.dilations()[1] > 1 || p.dilations()[2] > 1),
                     "dilation > 1 (CUTLASS's strided backward-data kernel)");
    ANYDNN_REJECT_IF(kUnitStrideOnly && (p.strides()[1] != 1 || p.strides()[2] != 1),
                     "stride > 1 (the unit-stride kernel)");
    ANYDNN_REJECT_IF(p.in_channels() > kMaxInputChannels,
                     "more than " + std::to_string(kMaxInputChannels) +
                         " input channels (the narrow-tile kernel)");
    const WorkspacePlan wp = plan(ctx, p);
    const size_t smem = backend_of(ctx).properties().sharedMemPerBlockOptin;
    return dispatch(p.data_type(), [&](auto e) {
      using Op = typename Traits::template Op<decltype(e)>;
      const size_t need = kSharedBytes<Op>;
      if (need > smem)
        return Applicability::no("needs " + std::to_string(need / 1024) +
                                 " KiB of shared memory per block, the device has " +
                                 std::to_string(smem / 1024));
      return can_implement<Op>(wp.ps, wp.mode);
    });
  }

  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return plan(ctx, p).total;
  }

  // The CUTLASS kernel, the staging copies (read + write) and, for split-K, the reduction of
  // the fp32 partials. The GEMM is priced as CUTLASS walks it: filter taps times the channels
  // rounded up to its k tile (a 3-channel input costs a whole tile per tap), and strided
  // backward data runs one kernel per stride phase over the taps that phase touches.
  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const CudaBackend& be = backend_of(ctx);
    const DeviceRates& r = be.rates();
    const WorkspacePlan wp = plan(ctx, p);
    const double elem = p.data_type() == miopenFloat ? 4.0 : 2.0;
    const GemmMath math = kExactFp32                     ? GemmMath::Tf32x3
                          : p.data_type() == miopenFloat ? GemmMath::Tf32
                                                         : GemmMath::Tensor16;
    double ms = 0;
    for (const auto& [o, at] : {std::pair{&wp.x, wp.x_at}, {&wp.w, wp.w_at}, {&wp.y, wp.y_at}})
      if (at != WorkspacePlan::kNone)
        ms +=
            kStagingFactor *
            memory_ms(r, elem * static_cast<double>(o->rows * o->hw * o->c + o->staged_elements()));
    const double n = static_cast<double>(p.batch());
    const double fy = static_cast<double>(p.filter_size()[1]);
    const double fx = static_cast<double>(p.filter_size()[2]);
    const double sy = static_cast<double>(p.strides()[1]), sx = static_cast<double>(p.strides()[2]);
    const double in_px = static_cast<double>(p.in_size()[1] * p.in_size()[2]);
    const double out_px = static_cast<double>(p.out_size()[1] * p.out_size()[2]);
    const double cp = static_cast<double>(wp.x.cp), kp = static_cast<double>(wp.w.rows_p);
    dispatch(p.data_type(), [&](auto e) {
      using Op = typename Traits::template Op<decltype(e)>;
      using Tile = typename Op::ThreadblockShape;
      const double tk = Tile::kK;
      const auto up = [&](double v) { return std::ceil(v / tk) * tk; };
      const double per_sm =
          std::floor(static_cast<double>(be.properties().sharedMemPerMultiprocessor) /
                     static_cast<double>(kSharedBytes<Op> + 1024));
      switch (Traits::kDirection) {
        case ConvDirection::Forward:
          ms += cutlass_conv_ms(r, math, n * out_px, kp, fy * fx * up(cp), Tile::kM, Tile::kN,
                                per_sm, 1, kCutlassFpropEfficiency);
          break;
        case ConvDirection::BackwardData:
          ms += cutlass_conv_ms(r, math, n * in_px, cp,
                                std::ceil(fy / sy) * std::ceil(fx / sx) * up(kp), Tile::kM,
                                Tile::kN, per_sm, 1, efficiency(kCutlassDgradEfficiency)) +
                (sy * sx - 1) * kLaunchMs;
          break;
        case ConvDirection::BackwardWeights: {
          const double slices = wp.ps.split_k_slices;
          ms += cutlass_conv_ms(r, math, kp, fy * fx * cp, n * out_px, Tile::kM, Tile::kN, per_sm,
                                slices, kCutlassWgradEfficiency);
          if (wp.reduce) ms += memory_ms(r, kp * fy * fx * cp * (4.0 * slices + elem));
          break;
        }
      }
    });
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32, ms);
  }

  // Forward only (implicit_gemm_tc_epilogue.hpp: where the epilogue runs for which output).
  Applicability epilogue_support(const ExecutionContext& ctx, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    if constexpr (Traits::kDirection != ConvDirection::Forward) {
      return Applicability::no("not a forward problem");
    } else {
      if (Applicability a = cuda_epilogue_support(p, needs); !a) return a;
      const WorkspacePlan wp = plan(ctx, p);
      const bool staged = wp.y_at != WorkspacePlan::kNone;
      if (staged && p.data_type() == miopenFloat) return Applicability::yes();  // the copy back
      // CUTLASS's fused output stage is instantiated for plain TF32 only (epilogue.cu).
      if constexpr (kExactFp32) {
        return Applicability::no(
            "an epilogue in the output stage of a 3xTF32 kernel (only a "
            "staged NCHW or padded output takes one)");
      } else {
        ANYDNN_REJECT_IF(staged && needs.residual,
                         "a residual on a staged 16-bit output (NCHW, or channels not a multiple "
                         "of 8): CUTLASS would read z in its padded NHWC order");
        ANYDNN_REJECT_IF(wp.y.cp > CudaBackend::kChannelIndexCount,
                         "more than " + std::to_string(CudaBackend::kChannelIndexCount) +
                             " output channels (the epilogue's channel index table)");
        return fprop_epilogue_can_implement(p.data_type(), wp.ps);
      }
    }
  }

  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* backend = &backend_of(ctx);
    const WorkspacePlan wp = plan(ctx, p);
    const size_t elem = p.data_type() == miopenFloat ? 4 : 2;
    const ConvDirection dir = Traits::kDirection;
    const miopenDataType_t type = p.data_type();
    const int channels = static_cast<int>(p.out_channels());

    return [=](const ConvBuffers& b) {
      const cudaStream_t stream = backend->cuda_stream();
      auto* ws = static_cast<char*>(b.workspace);
      ANYDNN_CHECK(wp.total == 0 || (ws != nullptr && b.workspace_size >= wp.total),
                   miopenStatusBadParm,
                   "workspace of " << b.workspace_size << " bytes, " << wp.total << " needed");
      // Padded NHWC views: the user's buffer or its staged copy in the workspace.
      void* x = wp.x_at == WorkspacePlan::kNone ? b.x : ws + wp.x_at;
      void* w = wp.w_at == WorkspacePlan::kNone ? b.w : ws + wp.w_at;
      void* y = wp.y_at == WorkspacePlan::kNone ? b.y : ws + wp.y_at;
      for (const void* ptr : {x, w, y})
        ANYDNN_CHECK(reinterpret_cast<uintptr_t>(ptr) % 16 == 0, miopenStatusBadParm,
                     "tensor-core convolution needs 16-byte aligned buffers");
      // Forward with a fused epilogue: in CUTLASS's output stage, or in the copy back of a
      // staged fp32 output (implicit_gemm_tc_epilogue.hpp).
      const ConvEpilogue* ep = dir == ConvDirection::Forward ? b.epilogue : nullptr;
      const bool copy_back_epilogue =
          ep != nullptr && wp.y_at != WorkspacePlan::kNone && type == miopenFloat;
      const bool cutlass_epilogue = ep != nullptr && !copy_back_epilogue;
      ANYDNN_CHECK(!cutlass_epilogue || ep->residual == nullptr ||
                       reinterpret_cast<uintptr_t>(ep->residual) % 16 == 0,
                   miopenStatusBadParm, "tensor-core convolution needs a 16-byte aligned z");
      // Inputs in.
      if (dir != ConvDirection::BackwardData && wp.x_at != WorkspacePlan::kNone)
        stage_in(wp.x, b.x, x, elem, stream);
      if (dir != ConvDirection::BackwardWeights && wp.w_at != WorkspacePlan::kNone)
        stage_in(wp.w, b.w, w, elem, stream);
      if (dir != ConvDirection::Forward && wp.y_at != WorkspacePlan::kNone)
        stage_in(wp.y, b.y, y, elem, stream);
      void* op_ws = wp.op_bytes == 0 ? nullptr : ws + wp.op;
      dispatch(type, [&](auto e) {
        using E = decltype(e);
        using Op = typename Traits::template Op<E>;
        switch (dir) {
          case ConvDirection::Forward:
            if (cutlass_epilogue)
              run_fprop_epilogue(type, wp.ps, x, w, y, epilogue_args(*ep), channels,
                                 backend->channel_indices(), stream);
            else
              run_cutlass<Op>(wp.ps, x, w, y, wp.mode, op_ws, stream);
            break;
          case ConvDirection::BackwardData:
            run_cutlass<Op>(wp.ps, y, w, x, wp.mode, op_ws, stream);
            break;
          case ConvDirection::BackwardWeights:
            if constexpr (Traits::kSplitK) {
              if (wp.reduce) {
                // Partials [slices][Kp][R*S*Cp] in fp32, then their sum in E into dw's real
                // rows (padded rows Kp > K are never read back).
                auto* partials = static_cast<float*>(op_ws);
                run_cutlass<Op>(wp.ps, y, x, partials, wp.mode, partials, stream);
                const size_t cols = wp.w.hw * wp.w.cp;
                run_reduction<SplitKReduction<E>>(wp.w.rows, cols, wp.w.rows_p * cols,
                                                  wp.ps.split_k_slices, partials, w, stream);
                break;
              }
            }
            // Writes E directly: a kernel with ElementC = E and one slice (planned so).
            if constexpr (std::is_same_v<typename Op::ElementC, E>)
              run_cutlass<Op>(wp.ps, y, x, w, wp.mode, op_ws, stream);
            break;
        }
      });
      // Output out.
      if (dir == ConvDirection::Forward && wp.y_at != WorkspacePlan::kNone) {
        if (copy_back_epilogue)
          stage_out_epilogue(wp.y.nchw, wp.y.rows, wp.y.hw, wp.y.c, wp.y.cp,
                             static_cast<const float*>(y), static_cast<float*>(b.y),
                             epilogue_args(*ep), stream);
        else
          stage_out(wp.y, y, b.y, elem, stream);
      }
      if (dir == ConvDirection::BackwardData && wp.x_at != WorkspacePlan::kNone)
        stage_out(wp.x, x, b.x, elem, stream);
      if (dir == ConvDirection::BackwardWeights && wp.w_at != WorkspacePlan::kNone)
        stage_out(wp.w, w, b.w, elem, stream);
    };
  }

 private:
  static WorkspacePlan plan(const ExecutionContext& ctx, const ConvProblem& p) {
    WorkspacePlan wp;
    const size_t a = alignment_of(p.data_type());
    const size_t n = p.batch(), c = p.in_channels(), k = p.out_channels();
    const size_t cp = round_up(c, a), kp = round_up(k, a);
    const size_t hw_in = p.in_size()[1] * p.in_size()[2];
    const size_t hw_out = p.out_size()[1] * p.out_size()[2];
    const size_t hw_fil = p.filter_size()[1] * p.filter_size()[2];
    const auto nchw = [](const TensorDescriptor& d) { return order_of(d) == Order::Nchw; };
    wp.x = Operand{nchw(p.x()), n, n, c, cp, hw_in};
    wp.w = Operand{nchw(p.w()), k, kp, c, cp, hw_fil};
    wp.y = Operand{nchw(p.y()), n, n, k, kp, hw_out};
    const size_t elem = p.data_type() == miopenFloat ? 4 : 2;
    size_t at = 0;
    const auto place = [&](const Operand& o, size_t& slot) {
      if (!o.staged()) return;
      slot = at;
      at = align_up(at + o.staged_elements() * elem);
    };
    place(wp.x, wp.x_at);
    place(wp.w, wp.w_at);
    place(wp.y, wp.y_at);
    wp.ps = problem_size(p, cp, kp, 1);
    const int sms = backend_of(ctx).properties().multiProcessorCount;
    dispatch(p.data_type(), [&](auto e) {
      using E = decltype(e);
      using Op = typename Traits::template Op<E>;
      if constexpr (Traits::kSplitK) {
        using Tile = typename Op::ThreadblockShape;
        const auto g = cutlass::conv::implicit_gemm_problem_size(Op::kConvolutionalOperator, wp.ps);
        wp.ps.split_k_slices =
            split_k_slices(g.m(), g.n(), g.k(), Tile::kM, Tile::kN, Tile::kK, sms);
        // A kernel writing fp32 for a 16-bit type always goes through the reduction.
        wp.reduce = wp.ps.split_k_slices > 1 || !std::is_same_v<typename Op::ElementC, E>;
        if (wp.reduce) wp.mode = cutlass::conv::SplitKMode::kParallel;
      }
      wp.op_bytes = cutlass_workspace<Op>(wp.ps, wp.mode);
    });
    wp.op = at;
    wp.total = wp.op_bytes == 0 && at == 0 ? 0 : at + wp.op_bytes;
    return wp;
  }
};

}  // namespace anydnn::cuda::tc
