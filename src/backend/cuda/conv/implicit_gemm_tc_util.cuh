// Shared part of the tensor-core implicit-GEMM solvers (implicit_gemm_tc_{fwd,bwd,wrw}.cu):
// CUTLASS 2.x implicit-GEMM convolutions (Sm80 tensor ops, fp32 accumulation) on NHWC tensors.
//
// CUTLASS wants every operand packed NHWC (weights KRSC). A packed NHWC tensor is used in
// place; a packed NCHW one is transposed into the workspace first (an input) or written there
// and transposed back (the output). The three solvers differ only in the CUTLASS kernel and in
// which tensors are its A, B and C operands; TcSolver holds everything else.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

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
#include "cutlass/numeric_types.h"
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

// 128-bit accesses: the channel counts must be multiples of this (8 for 16-bit, 4 for fp32).
template <class E>
inline constexpr int kAlignment = 128 / cutlass::sizeof_bits<E>::value;

// alpha * accumulator (+ beta * source, beta is always 0 here: the front-end blends).
template <class E>
using Epilogue = cutlass::epilogue::thread::LinearCombination<E, kAlignment<E>, float, float>;

// --- NCHW <-> NHWC ---------------------------------------------------------------------------

// out[b][s][r] = in[b][r][s] for b < B, r < R, s < S: NCHW -> NHWC is (B, R, S) = (N, C, HW),
// NHWC -> NCHW is (N, HW, C), KCYX -> KYXC is (K, C, YX). Elements are moved as raw bits.
template <class T>
__global__ void transpose_batched_kernel(const T* __restrict__ in, T* __restrict__ out, long long B,
                                         long long R, long long S) {
  __shared__ T tile[32][33];  // +1 column: the column reads hit distinct banks
  const long long tiles_r = (R + 31) / 32;
  const long long tiles_s = (S + 31) / 32;
  for (long long b = blockIdx.z; b < B; b += gridDim.z) {
    const T* src = in + b * R * S;
    T* dst = out + b * R * S;
    for (long long tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
      for (long long ts = blockIdx.x; ts < tiles_s; ts += gridDim.x) {
        const long long s = ts * 32 + threadIdx.x;
        for (int i = threadIdx.y; i < 32; i += blockDim.y) {
          const long long r = tr * 32 + i;
          if (r < R && s < S) tile[i][threadIdx.x] = src[r * S + s];
        }
        __syncthreads();
        const long long r = tr * 32 + threadIdx.x;
        for (int i = threadIdx.y; i < 32; i += blockDim.y) {
          const long long s2 = ts * 32 + i;
          if (r < R && s2 < S) dst[s2 * R + r] = tile[threadIdx.x][i];
        }
        __syncthreads();
      }
    }
  }
}

inline void transpose_batched(const void* in, void* out, size_t B, size_t R, size_t S,
                              size_t elem_bytes, cudaStream_t stream) {
  if (B == 0 || R == 0 || S == 0) return;
  const size_t tiles_r = (R + 31) / 32, tiles_s = (S + 31) / 32;
  const dim3 grid(static_cast<unsigned>(std::min<size_t>(tiles_s, 1u << 30)),
                  static_cast<unsigned>(std::min<size_t>(tiles_r, 65535)),
                  static_cast<unsigned>(std::min<size_t>(B, 65535)));
  const dim3 block(32, 8);
  const auto b = static_cast<long long>(B), r = static_cast<long long>(R),
             s = static_cast<long long>(S);
  if (elem_bytes == 2) {
    transpose_batched_kernel<uint16_t><<<grid, block, 0, stream>>>(
        static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), b, r, s);
  } else {
    transpose_batched_kernel<uint32_t><<<grid, block, 0, stream>>>(
        static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), b, r, s);
  }
  ANYDNN_CUDA_LAUNCHED("tensor-core conv: NCHW/NHWC transpose");
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
inline Applicability check_common(const ExecutionContext& ctx, const ConvProblem& p,
                                  ConvDirection dir) {
  ANYDNN_REJECT_IF(p.direction() != dir, std::string("not a ") + direction_name(dir) + " problem");
  const miopenDataType_t t = p.data_type();
  ANYDNN_REJECT_IF(t != miopenHalf && t != miopenBFloat16 && t != miopenFloat,
                   "data type is not fp16, bf16 or fp32");
  ANYDNN_REJECT_IF(t == miopenFloat && !ctx.config.conv_allow_tf32,
                   "TF32 not allowed (ANYDNN_CONV_ALLOW_TF32=1)");
  ANYDNN_REJECT_IF(backend_of(ctx).sm_version() < 80, "needs sm_80 or newer tensor cores");
  ANYDNN_REJECT_IF(p.spatial_dims() != 2, "only 2-D convolutions");
  ANYDNN_REJECT_IF(p.groups() != 1, "groups > 1");
  ANYDNN_REJECT_IF(p.pads()[1] < 0 || p.pads()[2] < 0, "negative padding");
  for (const TensorDescriptor* d : {&p.x(), &p.w(), &p.y()})
    ANYDNN_REJECT_IF(order_of(*d) == Order::Other, "a tensor is neither packed NCHW nor NHWC");
  // CUTLASS indexes with int; its can_implement bounds the byte sizes to 2 GiB as well.
  constexpr size_t kIntMax = static_cast<size_t>(std::numeric_limits<int>::max());
  for (const TensorDescriptor* d : {&p.x(), &p.w(), &p.y()})
    ANYDNN_REJECT_IF(d->element_count() > kIntMax, "a tensor has more than 2^31 elements");
  return Applicability::yes();
}

inline cutlass::conv::Conv2dProblemSize problem_size(const ConvProblem& p) {
  const auto i = [](size_t v) { return static_cast<int>(v); };
  return cutlass::conv::Conv2dProblemSize(
      i(p.batch()), i(p.in_size()[1]), i(p.in_size()[2]), i(p.in_channels()), i(p.out_channels()),
      i(p.filter_size()[1]), i(p.filter_size()[2]), i(p.out_size()[1]), i(p.out_size()[2]),
      p.pads()[1], p.pads()[2], p.strides()[1], p.strides()[2], p.dilations()[1], p.dilations()[2],
      cutlass::conv::Mode::kCrossCorrelation, /*split_k_slices=*/1,
      /*groups=*/1);
}

// CUTLASS's arguments for packed NHWC operands at the given pointers; alpha 1, beta 0, no
// split-K (serial mode with one slice: deterministic, no semaphore workspace).
template <class Op>
typename Op::Arguments make_arguments(const cutlass::conv::Conv2dProblemSize& ps, const void* a,
                                      const void* b, void* c) {
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
                                {pc, lc}, typename Op::EpilogueOutputOp::Params(1.0f, 0.0f),
                                SplitKMode::kSerial);
}

// Shared memory one thread block of the kernel needs (96 KiB for every configuration above).
template <class Op>
inline constexpr size_t kSharedBytes = sizeof(typename Op::UnderlyingKernel::SharedStorage);

template <class Op>
Applicability can_implement(const cutlass::conv::Conv2dProblemSize& ps) {
  const cutlass::Status s = Op::can_implement(make_arguments<Op>(ps, nullptr, nullptr, nullptr));
  if (s == cutlass::Status::kSuccess) return Applicability::yes();
  return Applicability::no(std::string("CUTLASS cannot implement it: ") +
                           cutlass::cutlassGetStatusString(s));
}

template <class Op>
size_t cutlass_workspace(const cutlass::conv::Conv2dProblemSize& ps) {
  return Op::get_workspace_size(make_arguments<Op>(ps, nullptr, nullptr, nullptr));
}

template <class Op>
void run_cutlass(const cutlass::conv::Conv2dProblemSize& ps, const void* a, const void* b, void* c,
                 void* workspace, cudaStream_t stream) {
  Op op;
  const auto args = make_arguments<Op>(ps, a, b, c);
  cutlass::Status s = op.initialize(args, workspace, stream);
  if (s == cutlass::Status::kSuccess) s = op.run(stream);
  ANYDNN_CHECK(s == cutlass::Status::kSuccess, miopenStatusInternalError,
               "CUTLASS convolution failed: " << cutlass::cutlassGetStatusString(s) << " ("
                                              << cudaGetErrorString(cudaGetLastError()) << ")");
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

// Where the workspace holds what: NHWC copies of NCHW operands, then CUTLASS's own workspace.
// Each part starts 256-byte aligned (the workspace itself comes from cudaMalloc).
struct WorkspacePlan {
  static constexpr size_t kNone = ~size_t{0};
  size_t x = kNone, w = kNone, y = kNone;  // offsets of the NHWC copies
  size_t op = 0;                           // offset of CUTLASS's workspace
  size_t op_bytes = 0;
  size_t total = 0;
};

inline size_t align_up(size_t v) {
  return (v + 255) / 256 * 256;
}

inline WorkspacePlan plan_workspace(const ConvProblem& p, size_t op_bytes) {
  WorkspacePlan plan;
  size_t at = 0;
  const auto place = [&](const TensorDescriptor& d, size_t& slot) {
    if (order_of(d) != Order::Nchw) return;
    slot = at;
    at = align_up(at + d.num_bytes());
  };
  place(p.x(), plan.x);
  place(p.w(), plan.w);
  place(p.y(), plan.y);
  plan.op = at;
  plan.op_bytes = op_bytes;
  plan.total = op_bytes == 0 && at == 0 ? 0 : at + op_bytes;
  return plan;
}

// Per direction (Traits): the name, the kernel per element type (Traits::Op<E>), and which of
// x, w, y are CUTLASS's A, B and C (the output).
//   Forward:         A = x,  B = w, C = y
//   BackwardData:    A = dy, B = w, C = dx
//   BackwardWeights: A = dy, B = x, C = dw
template <class Traits>
class TcSolver : public ConvSolver {
 public:
  std::string_view name() const override { return Traits::kName; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  // Each output element is summed by one thread block in a fixed order (no split-K, no
  // atomics): same bits every run.
  bool deterministic() const override { return true; }

  Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const override {
    if (Applicability a = check_common(ctx, p, Traits::kDirection); !a) return a;
    // What can_implement would refuse, with a clearer reason; it still has the last word.
    const size_t align = p.data_type() == miopenFloat ? 4 : 8;
    ANYDNN_REJECT_IF(p.in_channels() % align != 0 || p.out_channels() % align != 0,
                     "channel counts are not multiples of " + std::to_string(align));
    ANYDNN_REJECT_IF(Traits::kDirection != ConvDirection::BackwardWeights &&
                         (p.filter_size()[1] > 32 || p.filter_size()[2] > 32),
                     "filter larger than 32x32");
    ANYDNN_REJECT_IF(Traits::kDirection == ConvDirection::BackwardData &&
                         (p.dilations()[1] > 1 || p.dilations()[2] > 1),
                     "dilation > 1 (CUTLASS's strided backward-data kernel)");
    const auto ps = problem_size(p);
    const size_t smem = backend_of(ctx).properties().sharedMemPerBlockOptin;
    return dispatch_element(p.data_type(), [&](auto e) {
      using Op = typename Traits::template Op<decltype(e)>;
      const size_t need = kSharedBytes<Op>;
      if (need > smem)
        return Applicability::no("needs " + std::to_string(need / 1024) +
                                 " KiB of shared memory per block, the device has " +
                                 std::to_string(smem / 1024));
      return can_implement<Op>(ps);
    });
  }

  size_t workspace_size(const ExecutionContext&, const ConvProblem& p) const override {
    return plan(p).total;
  }

  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* backend = &backend_of(ctx);
    const auto ps = problem_size(p);
    const WorkspacePlan wp = plan(p);
    const size_t elem = p.x().num_bytes() / p.x().element_count();
    // (B, R, S) of the NCHW -> NHWC transpose of each tensor (NHWC -> NCHW swaps R and S).
    const size_t n = p.batch(), c = p.in_channels(), k = p.out_channels();
    const size_t hw_in = p.in_size()[1] * p.in_size()[2];
    const size_t hw_out = p.out_size()[1] * p.out_size()[2];
    const size_t hw_fil = p.filter_size()[1] * p.filter_size()[2];
    const ConvDirection dir = Traits::kDirection;
    const miopenDataType_t type = p.data_type();

    return [=](const ConvBuffers& b) {
      const cudaStream_t stream = backend->cuda_stream();
      auto* ws = static_cast<char*>(b.workspace);
      ANYDNN_CHECK(wp.total == 0 || (ws != nullptr && b.workspace_size >= wp.total),
                   miopenStatusBadParm,
                   "workspace of " << b.workspace_size << " bytes, " << wp.total << " needed");
      // NHWC views: the user's buffer or its copy in the workspace.
      void* x = wp.x == WorkspacePlan::kNone ? b.x : ws + wp.x;
      void* w = wp.w == WorkspacePlan::kNone ? b.w : ws + wp.w;
      void* y = wp.y == WorkspacePlan::kNone ? b.y : ws + wp.y;
      for (const void* ptr : {x, w, y})
        ANYDNN_CHECK(reinterpret_cast<uintptr_t>(ptr) % 16 == 0, miopenStatusBadParm,
                     "tensor-core convolution needs 16-byte aligned buffers");
      // Inputs in: NCHW -> NHWC.
      if (dir != ConvDirection::BackwardData && wp.x != WorkspacePlan::kNone)
        transpose_batched(b.x, x, n, c, hw_in, elem, stream);
      if (dir != ConvDirection::BackwardWeights && wp.w != WorkspacePlan::kNone)
        transpose_batched(b.w, w, k, c, hw_fil, elem, stream);
      if (dir != ConvDirection::Forward && wp.y != WorkspacePlan::kNone)
        transpose_batched(b.y, y, n, k, hw_out, elem, stream);
      void* op_ws = wp.op_bytes == 0 ? nullptr : ws + wp.op;
      dispatch_element(type, [&](auto e) {
        using Op = typename Traits::template Op<decltype(e)>;
        switch (dir) {
          case ConvDirection::Forward:
            run_cutlass<Op>(ps, x, w, y, op_ws, stream);
            break;
          case ConvDirection::BackwardData:
            run_cutlass<Op>(ps, y, w, x, op_ws, stream);
            break;
          case ConvDirection::BackwardWeights:
            run_cutlass<Op>(ps, y, x, w, op_ws, stream);
            break;
        }
      });
      // Output out: NHWC -> NCHW.
      if (dir == ConvDirection::Forward && wp.y != WorkspacePlan::kNone)
        transpose_batched(y, b.y, n, hw_out, k, elem, stream);
      if (dir == ConvDirection::BackwardData && wp.x != WorkspacePlan::kNone)
        transpose_batched(x, b.x, n, hw_in, c, elem, stream);
      if (dir == ConvDirection::BackwardWeights && wp.w != WorkspacePlan::kNone)
        transpose_batched(w, b.w, k, hw_fil, c, elem, stream);
    };
  }

 private:
  static WorkspacePlan plan(const ConvProblem& p) {
    const auto ps = problem_size(p);
    const size_t op_bytes = dispatch_element(p.data_type(), [&](auto e) {
      return cutlass_workspace<typename Traits::template Op<decltype(e)>>(ps);
    });
    return plan_workspace(p, op_bytes);
  }
};

}  // namespace anydnn::cuda::tc
