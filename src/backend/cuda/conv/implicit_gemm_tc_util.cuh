// Shared part of the CUTLASS 2.x implicit-GEMM solvers (implicit_gemm_tc_{fwd,
// fwd_fixed_channels,bwd,bwd_s1,bwd_narrow,wrw,wrw_serial}.cu, implicit_gemm_3xtf32_*.cu,
// implicit_gemm_simt_*.cu): Sm80 tensor-op or CUDA-core convolutions (fp32 accumulation) on NHWC
// tensors, their tile configurations in implicit_gemm_configs.hpp, CUTLASS's arguments and the
// invokers' operator cache in implicit_gemm_op_cache.cuh. The solver template, its workspace plan
// and CUTLASS's argument builders must agree on the same padded layouts (implicit_gemm_staging.cuh:
// a packed NHWC tensor with aligned channels is used in place, any other one is staged in the
// workspace as NHWC with the channel count rounded up and the extra channels zero; the zero
// channels add nothing to any sum, so the result is exact). The solvers differ only in the CUTLASS
// kernel and in which tensors are its A, B and C operands; TcSolver holds everything else. Backward
// weights also splits its long reduction (N*P*Q) over several thread blocks (CUTLASS's parallel
// split-K plus a reduction kernel, both in a fixed order; or serial split-K into one fp32 sum, in
// slice order). Forward also takes a fused chain's epilogue (implicit_gemm_tc_epilogue.hpp:
// CUTLASS's output stage, or the copy back of a staged fp32 output).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "backend/cuda/conv/conv_epilogue.hpp"
#include "backend/cuda/conv/cost_model.hpp"
#include "backend/cuda/conv/implicit_gemm_configs.hpp"
#include "backend/cuda/conv/implicit_gemm_op_cache.cuh"
#include "backend/cuda/conv/implicit_gemm_staging.cuh"
#include "backend/cuda/conv/implicit_gemm_tc_epilogue.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "conv/conv_solver.hpp"
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

namespace anydnn::cuda::tc {

// 128-bit accesses: the channel counts CUTLASS sees must be multiples of this (8 for 16-bit,
// 4 for fp32); others are padded up to it in the workspace.
template <class E>
inline constexpr int kAlignment = 128 / cutlass::sizeof_bits<E>::value;

// alpha * accumulator (+ beta * source, beta is always 0 here: the front-end blends).
template <class E>
using Epilogue = cutlass::epilogue::thread::LinearCombination<E, kAlignment<E>, float, float>;
// The CUDA-core (SIMT) kernels' epilogue writes one element per access.
using EpilogueSimt = cutlass::epilogue::thread::LinearCombination<float, 1, float, float>;

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

// Serial split-K: at most this many slices, each costing about this long in turn (the H100 run
// of 2026-12-07, docs/performance.md [gpu-conv]).
inline constexpr int kMaxSerialSlices = 8;
inline constexpr double kSerialSliceMs = 0.003;

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
  // Serial split-K (Traits::kSerialSplitK): the slices add into one fp32 sum at `acc_at`, in
  // slice order (CUTLASS's semaphores, at `op`), then one pass converts it to the output type.
  bool serial = false;
  size_t acc_at = kNone;
  size_t op = 0;  // offset of CUTLASS's workspace
  size_t op_bytes = 0;
  size_t total = 0;
};

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
  // kFixedChannels: a kernel for that many input channels exactly (CUTLASS's fixed-channels
  // iterators, forward only): fewer are padded up to it, and the reduction is the filter's
  // R*S*C contiguous values rather than every tap's channels rounded up to the k tile (a
  // 3-channel stem walked 49 x 64 where it needs 49 x 4).
  static constexpr size_t kFixedChannels = [] {
    if constexpr (requires { Traits::kFixedChannels; }) return Traits::kFixedChannels;
    return size_t{0};
  }();
  // kWaveFloorMs (with kFixedChannels): the least time one wave of resident blocks takes,
  // whatever its k tiles.
  static constexpr double kWaveFloorMs = [] {
    if constexpr (requires { Traits::kWaveFloorMs; }) return Traits::kWaveFloorMs;
    return 0.0;
  }();
  // kSerialSplitK (with kSplitK): serial instead of parallel split-K.
  static constexpr bool kSerialSplitK = [] {
    if constexpr (requires { Traits::kSerialSplitK; }) return Traits::kSerialSplitK;
    return false;
  }();
  // kExactFp32: a 3xTF32 kernel (fp32 only, no TF32 switch; TileConfig3xTf32).
  static constexpr bool kExactFp32 = [] {
    if constexpr (requires { Traits::kExactFp32; }) return Traits::kExactFp32;
    return false;
  }();
  // kSimtFp32: fp32 on CUDA cores (strict fp32, no switch; TileConfigSimt).
  static constexpr bool kSimtFp32 = [] {
    if constexpr (requires { Traits::kSimtFp32; }) return Traits::kSimtFp32;
    return false;
  }();
  static constexpr bool kFloatOnly = kExactFp32 || kSimtFp32;
  static constexpr KernelMath kMath = kExactFp32  ? KernelMath::Tf32x3
                                      : kSimtFp32 ? KernelMath::SimtFp32
                                                  : KernelMath::TensorOp;
  // dispatch_element, but a 3xTF32 solver instantiates its kernel for float only.
  template <class F>
  static decltype(auto) dispatch(miopenDataType_t type, F&& f) {
    if constexpr (kFloatOnly)
      return f(float{});
    else
      return dispatch_element(type, std::forward<F>(f));
  }

 public:
  std::string_view name() const override { return Traits::kName; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  // No atomics: each output element (or split-K partial) is summed by one thread block in a
  // fixed order, and the split-K reduction adds the slices in a fixed order: same bits every run.
  bool deterministic(const ConvProblem&) const override { return true; }

  Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const override {
    if (Applicability a = check_common(ctx, p, Traits::kDirection, kMath); !a) return a;
    // What can_implement would refuse, with a clearer reason; it still has the last word.
    ANYDNN_REJECT_IF(Traits::kDirection != ConvDirection::BackwardWeights &&
                         (p.filter_size()[1] > 32 || p.filter_size()[2] > 32),
                     "filter larger than 32x32");
    ANYDNN_REJECT_IF(Traits::kDirection == ConvDirection::BackwardData &&
                         (p.dilations()[1] > 1 || p.dilations()[2] > 1),
                     "dilation > 1 (CUTLASS's strided backward-data kernel)");
    ANYDNN_REJECT_IF(kUnitStrideOnly && (p.strides()[1] != 1 || p.strides()[2] != 1),
                     "stride > 1 (the unit-stride kernel)");
    ANYDNN_REJECT_IF(kFixedChannels != 0 && p.in_channels() > kFixedChannels,
                     "more than " + std::to_string(kFixedChannels) +
                         " input channels (the fixed-channels kernel)");
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
                          : kSimtFp32                    ? GemmMath::Fp32
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
      // Resident blocks per SM: by shared memory, and by registers (taken as 128 per thread:
      // the SIMT kernels' 256-thread blocks fit two, not the six their 32 KiB would allow).
      const double per_sm =
          std::min(std::floor(static_cast<double>(be.properties().sharedMemPerMultiprocessor) /
                              static_cast<double>(kSharedBytes<Op> + 1024)),
                   std::floor(65536.0 / (32.0 * Op::kWarpCount * 128.0)));
      switch (Traits::kDirection) {
        case ConvDirection::Forward: {
          const double gemm = cutlass_conv_ms(
              r, math, n * out_px, kp, kFixedChannels != 0 ? up(fy * fx * cp) : fy * fx * up(cp),
              Tile::kM, Tile::kN, per_sm, 1, efficiency(kCutlassFpropEfficiency));
          const double waves = std::ceil(std::ceil(n * out_px / Tile::kM) *
                                         std::ceil(kp / Tile::kN) / (r.sms * per_sm));
          ms += std::max(gemm, waves * kWaveFloorMs + kLaunchMs);
          break;
        }
        case ConvDirection::BackwardData:
          ms += cutlass_conv_ms(r, math, n * in_px, cp,
                                std::ceil(fy / sy) * std::ceil(fx / sx) * up(kp), Tile::kM,
                                Tile::kN, per_sm, 1, efficiency(kCutlassDgradEfficiency)) +
                (sy * sx - 1) * kLaunchMs;
          break;
        case ConvDirection::BackwardWeights: {
          const double slices = wp.ps.split_k_slices;
          ms += cutlass_conv_ms(r, math, kp, fy * fx * cp, n * out_px, Tile::kM, Tile::kN, per_sm,
                                slices, efficiency(kCutlassWgradEfficiency));
          // Parallel: every slice's partials out to memory and back; serial: the one fp32 sum,
          // read and written by each slice in turn (mostly in L2), plus the semaphore reset.
          // Serial: the slices of one output tile also add in turn, each waiting for the one
          // before (measured ~3 us a slice: 64 slices took 0.22 ms where parallel took 0.04).
          if (wp.serial)
            ms += memory_ms(r, kp * fy * fx * cp * (4.0 * 2 + elem)) + kLaunchMs +
                  slices * kSerialSliceMs;
          else if (wp.reduce)
            ms += memory_ms(r, kp * fy * fx * cp * (4.0 * slices + elem));
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
      // CUTLASS's fused output stage is instantiated for plain TF32 only (epilogue.cu), and with
      // the general iterators (not for a fixed-channels input).
      if constexpr (kFloatOnly || kFixedChannels != 0) {
        return Applicability::no(
            "an epilogue in the output stage of a 3xTF32, CUDA-core or fixed-channels kernel "
            "(only a staged NCHW or padded fp32 output takes one)");
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

    auto cache = std::make_shared<OpCache>();
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
              cache->template run<Op>(wp.ps, x, w, y, wp.mode, op_ws, stream);
            break;
          case ConvDirection::BackwardData:
            cache->template run<Op>(wp.ps, y, w, x, wp.mode, op_ws, stream);
            break;
          case ConvDirection::BackwardWeights:
            if constexpr (Traits::kSplitK) {
              if (wp.serial) {
                // The semaphores first (the workspace is scratch between calls), then the slices
                // in order into the fp32 sum, then the sum in E into dw's real rows.
                auto* sum = reinterpret_cast<float*>(ws + wp.acc_at);
                if (wp.op_bytes != 0)
                  check_cuda(cudaMemsetAsync(op_ws, 0, wp.op_bytes, stream),
                             "tensor-core conv: split-K semaphores");
                cache->template run<Op>(wp.ps, y, x, sum, wp.mode, op_ws, stream);
                const size_t cols = wp.w.hw * wp.w.cp;
                run_reduction<SplitKReduction<E>>(wp.w.rows, cols, wp.w.rows_p * cols, 1, sum, w,
                                                  stream);
                break;
              }
              if (wp.reduce) {
                // Partials [slices][Kp][R*S*Cp] in fp32, then their sum in E into dw's real
                // rows (padded rows Kp > K are never read back).
                auto* partials = static_cast<float*>(op_ws);
                cache->template run<Op>(wp.ps, y, x, partials, wp.mode, partials, stream);
                const size_t cols = wp.w.hw * wp.w.cp;
                run_reduction<SplitKReduction<E>>(wp.w.rows, cols, wp.w.rows_p * cols,
                                                  wp.ps.split_k_slices, partials, w, stream);
                break;
              }
            }
            // Writes E directly: a kernel with ElementC = E and one slice (planned so).
            if constexpr (std::is_same_v<typename Op::ElementC, E>)
              cache->template run<Op>(wp.ps, y, x, w, wp.mode, op_ws, stream);
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
    const size_t cp = kFixedChannels != 0 ? kFixedChannels : round_up(c, a);
    const size_t kp = round_up(k, a);
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
        if constexpr (kSerialSplitK) {
          // Few slices: each one waits for the one before (kSerialSliceMs).
          wp.ps.split_k_slices = std::min(wp.ps.split_k_slices, kMaxSerialSlices);
          wp.serial = true;
          wp.mode = cutlass::conv::SplitKMode::kSerial;
          wp.acc_at = at;
          at = align_up(at + wp.w.staged_elements() * sizeof(float));
        } else {
          // A kernel writing fp32 for a 16-bit type always goes through the reduction.
          wp.reduce = wp.ps.split_k_slices > 1 || !std::is_same_v<typename Op::ElementC, E>;
          if (wp.reduce) wp.mode = cutlass::conv::SplitKMode::kParallel;
        }
      }
      wp.op_bytes = cutlass_workspace<Op>(wp.ps, wp.mode);
    });
    wp.op = at;
    wp.total = wp.op_bytes == 0 && at == 0 ? 0 : at + wp.op_bytes;
    return wp;
  }
};

}  // namespace anydnn::cuda::tc
