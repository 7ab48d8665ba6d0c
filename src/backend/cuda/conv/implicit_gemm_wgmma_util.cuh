// Shared part of the ImplicitGemmWgmma* solvers (implicit_gemm_wgmma_{fwd,bwd,wrw}_*.cu): CUTLASS
// 3.x's sm90 implicit-GEMM convolutions, which load their operands with TMA (im2col mode for the
// activation, so no gather address math in the main loop) and multiply with Hopper's
// asynchronous warp-group MMA (wgmma) instead of sm80's mma.sync. One solver per line of
// wgmma::kConfigs (implicit_gemm_configs.hpp); the staging of NCHW or unaligned operands is the
// 2.x solvers' (implicit_gemm_staging.cuh).
//
// The kernels need sm_90a (wgmma and TMA are not in the portable sm_90 target): these files are
// compiled for it alone when the build targets sm_90 (src/CMakeLists.txt, ANYDNN_HAVE_WGMMA), and
// the solvers only apply on a compute capability 9.0 device.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "backend/cuda/conv/cost_model.hpp"
#include "backend/cuda/conv/gemm_util.hpp"
#include "backend/cuda/conv/implicit_gemm_configs.hpp"
#include "backend/cuda/conv/implicit_gemm_staging.cuh"
#include "backend/cuda/conv/implicit_gemm_wgmma_split_k.cuh"
// First: CUTLASS's conv collective builder uses it without including it.
#include "cutlass/kernel_hardware_info.hpp"

#include "cute/tensor.hpp"
#include "cutlass/conv/collective/collective_builder.hpp"
#include "cutlass/conv/convnd_problem_shape.hpp"
#include "cutlass/conv/device/conv_universal_adapter.hpp"
#include "cutlass/conv/kernel/conv_universal.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/numeric_types.h"

namespace anydnn::cuda::wgmma {

constexpr cutlass::conv::Operator operator_of(ConvDirection d) {
  return d == ConvDirection::Forward        ? cutlass::conv::Operator::kFprop
         : d == ConvDirection::BackwardData ? cutlass::conv::Operator::kDgrad
                                            : cutlass::conv::Operator::kWgrad;
}

// The CUTLASS kernel of one configuration and element type (fp16, bf16, or float = TF32), 2-D,
// fp32 accumulation, alpha * acc written as D (E, or fp32 for split-K's partials) with no
// source tensor (ElementC void: beta is 0, the front-end blends), tile k = 128 bytes of E.
// Backward weights writes the filter (KRSC, CUTLASS's TensorKCSR tag) and takes its N tile as a
// nested shape, as CUTLASS's wgrad tests do: a tile covers channels of one filter tap.
template <ConvDirection kDir, class E, int kM, int kN, int kClusterM, int kDims, class D = E>
struct Kernel {
  static constexpr cutlass::conv::Operator kOp = operator_of(kDir);
  static constexpr int kAlign = 128 / cutlass::sizeof_bits<E>::value;
  static constexpr int kAlignD = 128 / cutlass::sizeof_bits<D>::value;
  static constexpr int kTileK = 1024 / cutlass::sizeof_bits<E>::value;
  using TileShape = std::conditional_t<
      kDir == ConvDirection::BackwardWeights,
      cute::Shape<cute::Int<kM>, cute::Shape<cute::Int<kN>>, cute::Shape<cute::Int<kTileK>>>,
      cute::Shape<cute::Int<kM>, cute::Int<kN>, cute::Shape<cute::Int<kTileK>>>>;
  using ClusterShape = cute::Shape<cute::Int<kClusterM>, cute::_1, cute::_1>;
  using Act =
      std::conditional_t<kDims == 3, cutlass::layout::TensorNDHWC, cutlass::layout::TensorNHWC>;
  using Flt =
      std::conditional_t<kDims == 3, cutlass::layout::TensorKCSRT, cutlass::layout::TensorKCSR>;
  using Out = std::conditional_t<kDir == ConvDirection::BackwardWeights, Flt, Act>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, Out, kAlignD, D, Out,
      kAlignD, cutlass::epilogue::TmaWarpSpecialized>::CollectiveOp;
  using Mainloop = typename cutlass::conv::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, kOp, E, Act, kAlign, E, Act, kAlign,
      float, TileShape, ClusterShape,
      cutlass::conv::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      cutlass::conv::collective::KernelScheduleAuto>::CollectiveOp;
  using Problem = cutlass::conv::ConvProblemShape<kOp, kDims>;
  using Op = cutlass::conv::device::ConvUniversalAdapter<
      cutlass::conv::kernel::ConvUniversal<Problem, Mainloop, Epilogue>>;
};

// CUTLASS's problem: the activation x as [N, (D,) H, W, Cp] and the filter as [Kp, (T,) R, S, Cp],
// packed (channels padded to the access width); the same description in every direction, CUTLASS
// derives the output (or dy) from it. Padding is symmetric, as MIOpen's; the output size CUTLASS
// derives is then MIOpen's ((H + 2p - d(R-1) - 1) / s + 1). ConvProblem keeps three spatial
// slots, a 2-D problem in the last two.
template <class Problem>
Problem problem_shape(const ConvProblem& p, size_t cp, size_t kp) {
  constexpr int kS = Problem::RankS;
  constexpr int kFirst = 3 - kS;
  typename Problem::TensorExtent act{}, flt{};
  typename Problem::TensorStride act_stride{}, flt_stride{};
  typename Problem::ShapePadding pad{};
  typename Problem::TraversalStride stride{};
  typename Problem::ShapeDilation dilation{};
  act[0] = static_cast<int>(p.batch());
  flt[0] = static_cast<int>(kp);
  for (int i = 0; i < kS; ++i) {
    act[1 + i] = static_cast<int>(p.in_size()[kFirst + i]);
    flt[1 + i] = static_cast<int>(p.filter_size()[kFirst + i]);
    pad[i] = p.pads()[kFirst + i];
    stride[i] = p.strides()[kFirst + i];
    dilation[i] = p.dilations()[kFirst + i];
  }
  act[kS + 1] = flt[kS + 1] = static_cast<int>(cp);
  act_stride[kS + 1] = flt_stride[kS + 1] = 1;
  for (int i = kS; i >= 0; --i) {  // packed, channels last
    act_stride[i] = act_stride[i + 1] * act[i + 1];
    flt_stride[i] = flt_stride[i + 1] * flt[i + 1];
  }
  return Problem(cutlass::conv::Mode::kCrossCorrelation, act, act_stride, flt, flt_stride, pad, pad,
                 stride, dilation, /*groups=*/1);
}

// Arguments for packed operands at the given pointers: A, B and the output D in CUTLASS's sense
// (forward: x, w -> y; backward data: dy, w -> dx; backward weights: dy, x -> dw).
template <class Op>
typename Op::Arguments arguments(const typename Op::ConvKernel::ProblemShape& ps, const void* a,
                                 const void* b, void* d, int device, int sms) {
  using K = typename Op::ConvKernel;
  using StrideD = typename K::StrideD;
  using Problem = typename K::ProblemShape;
  StrideD sd{};
  if constexpr (Op::kConvolutionalOperator == cutlass::conv::Operator::kWgrad) {
    // The filter as (k, (c, s, r[, t])): k's stride, then the taps' strides inside the nested N
    // mode (c's is the static 1). Leaving the taps' strides at 0, as this code once did, makes
    // every tap of a filter larger than 1x1 write the same elements (CUTLASS's
    // make_cute_packed_stride for TensorKCSR / TensorKCSRT sets all of them).
    cute::get<0>(sd) = ps.stride_C[0];
    cute::for_each(cute::make_seq<Problem::RankS>{}, [&](auto i) {
      cute::get<1, decltype(i)::value + 1>(sd) = ps.stride_C[Problem::RankS - decltype(i)::value];
    });
  } else {
    cute::for_each(cute::make_seq<cute::rank<0>(StrideD{})>{},
                   [&](auto i) { cute::get<0, i>(sd) = ps.stride_C[Problem::RankT - 2 - i]; });
  }
  cutlass::KernelHardwareInfo hw;
  hw.device_id = device;
  hw.sm_count = sms;
  typename Op::Arguments args{
      ps,
      {static_cast<const typename K::ElementA*>(a), static_cast<const typename K::ElementB*>(b)},
      {{}, nullptr, typename K::StrideC{}, static_cast<typename K::ElementD*>(d), sd},
      hw};
  args.epilogue.thread.alpha = 1.0f;
  args.epilogue.thread.beta = 0.0f;
  return args;
}

// One invoker's kernel state. CUTLASS's params hold TMA descriptors, which embed the tensors'
// addresses: they are rebuilt (update(), host-side descriptor encoding) only when the pointers
// change, so repeated calls on the same buffers (a training loop's, a benchmark's) cost a launch
// and nothing else. The first call also sets the kernel's shared-memory limit (initialize()).
// Shared by the copies of an invoker (std::function copies); the mutex covers a handle's
// invoker cache used from two threads, which MIOpen does not promise but costs nothing here.
template <class Op>
class Launcher {
 public:
  void launch(const typename Op::ConvKernel::ProblemShape& ps, const void* a, const void* b,
              void* d, int device, int sms, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    cutlass::Status s = cutlass::Status::kSuccess;
    if (!initialized_ || a != a_ || b != b_ || d != d_) {
      const auto args = arguments<Op>(ps, a, b, d, device, sms);
      s = initialized_ ? op_.update(args, nullptr) : op_.initialize(args, nullptr, stream);
      initialized_ = s == cutlass::Status::kSuccess;
      a_ = a;
      b_ = b;
      d_ = d;
    }
    if (s == cutlass::Status::kSuccess) s = op_.run(stream);
    ANYDNN_CHECK(s == cutlass::Status::kSuccess, miopenStatusInternalError,
                 "CUTLASS sm90 convolution failed: " << cutlass::cutlassGetStatusString(s) << " ("
                                                     << cudaGetErrorString(cudaGetLastError())
                                                     << ")");
  }

 private:
  std::mutex mutex_;
  Op op_;
  bool initialized_ = false;
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  void* d_ = nullptr;
};

// Split-K backward weights (implicit_gemm_wgmma_split_k.cuh): the kernel of Op (fp32 output)
// run as SplitKConvKernel, its reduction split `split.count` ways along grid z, each split's
// fp32 partial filter written into slice s of `partials` (slices of m_tiles * tile_m rows).
// Its parameters are built as Launcher's are (once per set of addresses): the mainloop's for
// the real problem, the epilogue's for the slices stacked along the filter's K.
template <class Op>
class SplitLauncher {
 public:
  using SK = SplitKConvKernel<typename Op::ConvKernel>;
  using Problem = typename Op::ConvKernel::ProblemShape;

  void launch(const Problem& ps, const Problem& stacked, const void* a, const void* b,
              float* partials, Split split, int device, int sms, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ready_ || a != a_ || b != b_ || partials != d_) {
      const auto args = arguments<Op>(ps, a, b, partials, device, sms);
      params_ = SK::to_underlying_arguments(args, nullptr);
      const auto stacked_args = arguments<Op>(stacked, a, b, partials, device, sms);
      params_.epilogue = SK::CollectiveEpilogue::to_underlying_arguments(
          cutlass::conv::detail::get_transformed_problem_shape_MNKL(stacked), stacked_args.epilogue,
          nullptr);
      if (!ready_)
        check_cuda(cudaFuncSetAttribute(split_k_conv_kernel<SK>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(SK::SharedStorageSize)),
                   "sm90 wgrad split-K: shared memory limit");
      ready_ = true;
      a_ = a;
      b_ = b;
      d_ = partials;
    }
    dim3 grid = SK::get_grid_shape(params_);
    grid.z = static_cast<unsigned>(split.count);
    split_k_conv_kernel<SK><<<grid, SK::get_block_shape(), SK::SharedStorageSize, stream>>>(
        params_, split.per, static_cast<int>(grid.x));
    ANYDNN_CUDA_LAUNCHED("sm90 wgrad split-K kernel");
  }

 private:
  std::mutex mutex_;
  typename SK::Params params_{};
  bool ready_ = false;
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  const void* d_ = nullptr;
};

// Where the workspace holds the staged copies of x, w and y (kNone: the user's buffer is used),
// and for split-K backward weights the fp32 partials.
struct Plan {
  static constexpr size_t kNone = ~size_t{0};
  tc::Operand x, w, y;
  size_t x_at = kNone, w_at = kNone, y_at = kNone;
  Split split;            // backward weights: the reduction's split (count 1: none)
  long long m_tiles = 0;  // backward weights: the filter's row tiles
  size_t partials_at = kNone;
  size_t total = 0;
  size_t slice_floats() const {
    return static_cast<size_t>(m_tiles) * static_cast<size_t>(tile_m) * w.hw * w.cp;
  }
  int tile_m = 0;
};

// The plan of a configuration (tile_m x tile_n, direction); backward weights also chooses its
// split for a device of these rates (none without them).
inline Plan make_plan(const ConvProblem& p, ConvDirection dir = ConvDirection::Forward,
                      int tile_m = 128, int tile_n = 128, const DeviceRates* rates = nullptr) {
  Plan plan;
  const size_t a = tc::alignment_of(p.data_type());
  const size_t n = p.batch(), c = p.in_channels(), k = p.out_channels();
  const size_t cp = tc::round_up(c, a), kp = tc::round_up(k, a);
  const auto nchw = [](const TensorDescriptor& d) { return tc::order_of(d) == tc::Order::Nchw; };
  const auto volume = [](const std::array<size_t, 3>& v) { return v[0] * v[1] * v[2]; };
  plan.x = tc::Operand{nchw(p.x()), n, n, c, cp, volume(p.in_size())};
  plan.w = tc::Operand{nchw(p.w()), k, kp, c, cp, volume(p.filter_size())};
  plan.y = tc::Operand{nchw(p.y()), n, n, k, kp, volume(p.out_size())};
  const size_t elem = p.data_type() == miopenFloat ? 4 : 2;
  const auto place = [&](const tc::Operand& o, size_t& slot) {
    if (!o.staged()) return;
    slot = plan.total;
    plan.total = tc::align_up(plan.total + o.staged_elements() * elem);
  };
  place(plan.x, plan.x_at);
  place(plan.w, plan.w_at);
  place(plan.y, plan.y_at);
  if (dir == ConvDirection::BackwardWeights && rates != nullptr) {
    // Output tiles: K rows by tile_m; each tap's channels by tile_n (a tile stays in one tap).
    const long long m_tiles = static_cast<long long>((kp + tile_m - 1) / tile_m);
    const long long tiles =
        m_tiles * static_cast<long long>((cp + tile_n - 1) / tile_n * plan.w.hw);
    const long long tile_k = 128 / static_cast<long long>(elem);
    const long long k_tiles = static_cast<long long>((n * plan.y.hw + tile_k - 1) / tile_k);
    plan.m_tiles = m_tiles;
    plan.tile_m = tile_m;
    plan.split =
        choose_split(tiles, k_tiles, *rates, 2.0 * tile_m * tile_n * static_cast<double>(tile_k),
                     static_cast<double>(plan.slice_floats()) * sizeof(float));
    if (plan.split.count > 1) {
      plan.partials_at = plan.total;
      plan.total = tc::align_up(plan.total + static_cast<size_t>(plan.split.count) *
                                                 plan.slice_floats() * sizeof(float));
    }
  }
  return plan;
}

// Efficiency of these kernels in the cost model (relative to kCutlassEfficiency): the 2.x
// kernels' fitted per-direction factors, so that tiles and waves separate the two families, and
// per tile shape what the first H100 run measured (2026-12-07, docs/performance.md [gpu-conv]):
// with one consumer warp group, a 128x64 or 64x128 block does half a 128x128 block's work at
// well under half its time (c128 28x28 3x3 forward: 0.029 ms for 128x64 against 0.021 for
// 128x128, where equal efficiency predicted 0.75x), and a reduction shorter than one k tile (the
// stem's 3 channels padded to 8 of 64) runs below the modelled rate (1.02 ms against the 2.x
// kernel's 0.74).
inline constexpr double kWgmmaEfficiency[3] = {kCutlassFpropEfficiency, kCutlassDgradEfficiency,
                                               kCutlassWgradEfficiency};
inline double tile_efficiency(int tile_m, int tile_n) {
  if (tile_m >= 128 && tile_n >= 128) return 1.0;
  return tile_m < tile_n ? 0.6 : 0.55;  // 64x128, 128x64
}
inline constexpr double kShortReductionFactor = 1.4;

template <int kIndex>
class WgmmaSolver final : public ConvSolver {
  static constexpr Config kCfg = kConfigs[kIndex];
  static constexpr ConvDirection kDir = kCfg.direction;
  // TF32 only forward: wgmma's TF32 needs K-major A and B (see implicit_gemm_configs.hpp).
  static constexpr bool kTf32 = kDir == ConvDirection::Forward;
  template <class E>
  using K = Kernel<kDir, E, kCfg.tile_m, kCfg.tile_n, kCfg.cluster_m, kCfg.spatial_dims>;
  // Backward weights' split-K kernel: the same configuration writing fp32 partials.
  template <class E>
  using KPartial =
      Kernel<kDir, E, kCfg.tile_m, kCfg.tile_n, kCfg.cluster_m, kCfg.spatial_dims, float>;
  static Plan plan_of(const ExecutionContext& ctx, const ConvProblem& p) {
    return make_plan(p, kDir, kCfg.tile_m, kCfg.tile_n, &backend_of(ctx).rates());
  }

  template <class F>
  static decltype(auto) dispatch(miopenDataType_t type, F&& f) {
    if (type == miopenBFloat16) return f(cutlass::bfloat16_t{});
    if constexpr (kTf32)
      if (type == miopenFloat) return f(float{});
    return f(cutlass::half_t{});  // fp16 (applicable() has refused every other type)
  }

 public:
  std::string_view name() const override { return kCfg.name; }
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  // Each output element is summed by one thread block in a fixed order: same bits every run.
  bool deterministic(const ConvProblem&) const override { return true; }

  Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const override {
    if (Applicability a =
            tc::check_common(ctx, p, kDir, tc::KernelMath::TensorOp, kCfg.spatial_dims);
        !a)
      return a;
    ANYDNN_REJECT_IF(backend_of(ctx).sm_version() != 90,
                     "needs compute capability 9.0 (the kernel is sm_90a code)");
    ANYDNN_REJECT_IF(!kTf32 && p.data_type() == miopenFloat,
                     "fp32 (TF32) only forward: wgmma's TF32 needs both operands K-major");
    ANYDNN_REJECT_IF(kDir == ConvDirection::BackwardData &&
                         (p.strides()[0] != 1 || p.strides()[1] != 1 || p.strides()[2] != 1),
                     "stride > 1 (CUTLASS's sm90 backward-data kernel is unit-stride only)");
    // These kernels derive the output extent from the input, filter, padding, stride and
    // dilation; MIOpen clamps an empty output to 1 (a filter larger than the padded input), which
    // CUTLASS would derive as 0 and divide by (its FastDivmod of the im2col extents: SIGFPE).
    for (int i = 3 - kCfg.spatial_dims; i < 3; ++i) {
      const long in = static_cast<long>(p.in_size()[i]), f = static_cast<long>(p.filter_size()[i]);
      const long derived =
          (in + 2L * p.pads()[i] - p.dilations()[i] * (f - 1) - 1) / p.strides()[i] + 1;
      ANYDNN_REJECT_IF(derived != static_cast<long>(p.out_size()[i]),
                       "an output clamped to 1 (the filter is larger than the padded input)");
    }
    const Plan plan = plan_of(ctx, p);
    return dispatch(p.data_type(), [&](auto e) {
      using Op = typename K<decltype(e)>::Op;
      const auto args = arguments<Op>(
          problem_shape<typename Op::ConvKernel::ProblemShape>(p, plan.x.cp, plan.w.rows_p),
          nullptr, nullptr, nullptr, 0, 1);
      if (Op::can_implement(args) != cutlass::Status::kSuccess)
        return Applicability::no(
            "CUTLASS cannot implement it (TMA im2col limits: padding, filter extent, size)");
      const size_t need = Op::ConvKernel::SharedStorageSize;
      const size_t smem = backend_of(ctx).properties().sharedMemPerBlockOptin;
      if (need > smem)
        return Applicability::no("needs " + std::to_string(need / 1024) + " KiB of shared memory");
      return Applicability::yes();
    });
  }

  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return plan_of(ctx, p).total;
  }

  double estimated_ms(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const CudaBackend& be = backend_of(ctx);
    const DeviceRates& r = be.rates();
    const Plan plan = plan_of(ctx, p);
    const double elem = p.data_type() == miopenFloat ? 4.0 : 2.0;
    double ms = 0;
    for (const auto& [o, at] :
         {std::pair{&plan.x, plan.x_at}, {&plan.w, plan.w_at}, {&plan.y, plan.y_at}})
      if (at != Plan::kNone)
        ms +=
            kStagingFactor *
            memory_ms(r, elem * static_cast<double>(o->rows * o->hw * o->c + o->staged_elements()));
    const double tk = 128.0 / elem;
    const auto up = [&](double v) { return std::ceil(v / tk) * tk; };
    const double n = static_cast<double>(p.batch());
    const double taps = static_cast<double>(plan.w.hw);
    const double in_px = static_cast<double>(plan.x.hw);
    const double out_px = static_cast<double>(plan.y.hw);
    const double cp = static_cast<double>(plan.x.cp), kp = static_cast<double>(plan.w.rows_p);
    const GemmMath math = p.data_type() == miopenFloat ? GemmMath::Tf32 : GemmMath::Tensor16;
    const double tm = kCfg.tile_m, tn = kCfg.tile_n;
    const double tile = tile_efficiency(kCfg.tile_m, kCfg.tile_n);
    switch (kDir) {
      case ConvDirection::Forward:
        ms += cutlass_conv_ms(r, math, n * out_px, kp, taps * up(cp), tm, tn, 1, 1,
                              kWgmmaEfficiency[0] * tile) *
              (cp < tk ? kShortReductionFactor : 1.0);
        break;
      case ConvDirection::BackwardData:
        ms += cutlass_conv_ms(r, math, n * in_px, cp, taps * up(kp), tm, tn, 1, 1,
                              kWgmmaEfficiency[1] * tile) *
              (kp < tk ? kShortReductionFactor : 1.0);
        break;
      case ConvDirection::BackwardWeights: {
        // A tile covers channels of one tap: taps x ceil(cp / tn) column tiles. Split-K adds
        // the fp32 partials' write and read and the sum's write.
        const double slices = plan.split.count;
        ms += cutlass_conv_ms(r, math, kp, taps * std::ceil(cp / tn) * tn, n * out_px, tm, tn, 1,
                              slices, kWgmmaEfficiency[2] * tile);
        if (plan.split.count > 1)
          ms += memory_ms(r, static_cast<double>(plan.slice_floats()) * 8.0 * slices +
                                 kp * taps * cp * elem) +
                kLaunchMs;
        break;
      }
    }
    return calibrated_ms(name(), p.data_type(), ctx.config.conv_allow_tf32, ms);
  }

  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return dispatch(p.data_type(),
                    [&](auto e) { return typed_invoker<decltype(e)>(backend_of(ctx), p); });
  }

 private:
  template <class E>
  static ConvInvoker typed_invoker(CudaBackend& be, const ConvProblem& p) {
    using Op = typename K<E>::Op;
    using Problem = typename Op::ConvKernel::ProblemShape;
    CudaBackend* backend = &be;
    const int sms = be.properties().multiProcessorCount;
    const Plan plan = make_plan(p, kDir, kCfg.tile_m, kCfg.tile_n, &be.rates());
    const auto ps = problem_shape<Problem>(p, plan.x.cp, plan.w.rows_p);
    const size_t elem = sizeof(E);
    int device = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    auto launcher = std::make_shared<Launcher<Op>>();
    // Backward weights with split-K: the partials' kernel, and its epilogue's view of the slices
    // stacked along the filter's K (split.count * m_tiles * tile_m rows).
    using SplitOp =
        std::conditional_t<kDir == ConvDirection::BackwardWeights, typename KPartial<E>::Op, Op>;
    std::shared_ptr<SplitLauncher<SplitOp>> split_launcher;
    Problem stacked = ps;
    if constexpr (kDir == ConvDirection::BackwardWeights) {
      if (plan.split.count > 1) {
        split_launcher = std::make_shared<SplitLauncher<SplitOp>>();
        stacked = problem_shape<Problem>(
            p, plan.x.cp, static_cast<size_t>(plan.split.count) * plan.m_tiles * plan.tile_m);
      }
    }
    const miopenDataType_t p_type = p.data_type();
    return [=](const ConvBuffers& b) {
      const cudaStream_t stream = backend->cuda_stream();
      auto* ws = static_cast<char*>(b.workspace);
      ANYDNN_CHECK(plan.total == 0 || (ws != nullptr && b.workspace_size >= plan.total),
                   miopenStatusBadParm,
                   "workspace of " << b.workspace_size << " bytes, " << plan.total << " needed");
      void* x = plan.x_at == Plan::kNone ? b.x : ws + plan.x_at;
      void* w = plan.w_at == Plan::kNone ? b.w : ws + plan.w_at;
      void* y = plan.y_at == Plan::kNone ? b.y : ws + plan.y_at;
      // TMA wants 16-byte aligned global addresses.
      for (const void* ptr : {x, w, y})
        ANYDNN_CHECK(reinterpret_cast<uintptr_t>(ptr) % 16 == 0, miopenStatusBadParm,
                     "the sm90 implicit-GEMM convolution needs 16-byte aligned buffers");
      if (kDir != ConvDirection::BackwardData && plan.x_at != Plan::kNone)
        tc::stage_in(plan.x, b.x, x, elem, stream);
      if (kDir != ConvDirection::BackwardWeights && plan.w_at != Plan::kNone)
        tc::stage_in(plan.w, b.w, w, elem, stream);
      if (kDir != ConvDirection::Forward && plan.y_at != Plan::kNone)
        tc::stage_in(plan.y, b.y, y, elem, stream);
      switch (kDir) {
        case ConvDirection::Forward:
          launcher->launch(ps, x, w, y, device, sms, stream);
          if (plan.y_at != Plan::kNone) tc::stage_out(plan.y, y, b.y, elem, stream);
          break;
        case ConvDirection::BackwardData:
          launcher->launch(ps, y, w, x, device, sms, stream);
          if (plan.x_at != Plan::kNone) tc::stage_out(plan.x, x, b.x, elem, stream);
          break;
        case ConvDirection::BackwardWeights:
          if constexpr (kDir == ConvDirection::BackwardWeights) {
            if (split_launcher) {
              auto* partials = reinterpret_cast<float*>(ws + plan.partials_at);
              split_launcher->launch(ps, stacked, y, x, partials, plan.split, device, sms, stream);
              sum_float_slices(partials, plan.w.rows_p * plan.w.hw * plan.w.cp, plan.slice_floats(),
                               plan.split.count, p_type, w, stream);
            } else {
              launcher->launch(ps, y, x, w, device, sms, stream);
            }
          }
          if (plan.w_at != Plan::kNone) tc::stage_out(plan.w, w, b.w, elem, stream);
          break;
      }
    };
  }
};

}  // namespace anydnn::cuda::wgmma
