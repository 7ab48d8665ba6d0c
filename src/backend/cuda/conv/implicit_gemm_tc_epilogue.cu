// The fused epilogue of ImplicitGemmTensorCoreFwd (implicit_gemm_tc_epilogue.hpp says where it
// runs for which output). The CUTLASS side: the forward kernel of implicit_gemm_tc_fwd.cu (same
// tiles, iterators and stages) with CUTLASS's broadcast epilogue (EpilogueWithBroadcast, its
// conv-bias-activation machinery) and our thread-level output operator.
//
// CUTLASS hands an output operator the accumulators of a few consecutive output channels and,
// from the broadcast vector, one value per channel, but not which channels they are. The
// contract needs two per-channel vectors (scale and shift) besides the residual, which takes
// CUTLASS's source operand; so the broadcast vector is the backend's table of channel indices
// (CudaBackend::channel_indices(): 0.0, 1.0, 2.0, ...), and the operator reads scale[k] and
// shift[k] itself (K floats each: they stay in L1 for the whole tile). The activation is the
// runtime switch of fused_epilogue.cuh, taken once per fragment, not per value.
#include <cstdint>
#include <string>

#include "backend/cuda/conv/implicit_gemm_tc_epilogue.hpp"
#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "backend/cuda/cuda_types.cuh"
#include "cutlass/array.h"
#include "cutlass/conv/kernel/default_conv2d_fprop_with_broadcast.h"
#include "cutlass/numeric_conversion.h"

namespace anydnn::cuda::tc {

namespace {

// v[i] = activation(v[i]) for N values, the mode decided once for all of them.
template <miopenActivationMode_t M, int N>
__device__ inline void activate_each(cutlass::Array<float, N>& v, const activ::ActivParams& p) {
  CUTLASS_PRAGMA_UNROLL
  for (int i = 0; i < N; ++i)
    v[i] = activ::forward<M>(v[i], p);
}

template <int N>
__device__ inline void activate_all(miopenActivationMode_t mode, cutlass::Array<float, N>& v,
                                    const activ::ActivParams& p) {
  switch (mode) {
    case miopenActivationRELU:
      return activate_each<miopenActivationRELU>(v, p);
    case miopenActivationLOGISTIC:
      return activate_each<miopenActivationLOGISTIC>(v, p);
    case miopenActivationTANH:
      return activate_each<miopenActivationTANH>(v, p);
    case miopenActivationSOFTRELU:
      return activate_each<miopenActivationSOFTRELU>(v, p);
    case miopenActivationABS:
      return activate_each<miopenActivationABS>(v, p);
    case miopenActivationPOWER:
      return activate_each<miopenActivationPOWER>(v, p);
    case miopenActivationCLIPPEDRELU:
      return activate_each<miopenActivationCLIPPEDRELU>(v, p);
    case miopenActivationLEAKYRELU:
      return activate_each<miopenActivationLEAKYRELU>(v, p);
    case miopenActivationELU:
      return activate_each<miopenActivationELU>(v, p);
    case miopenActivationPASTHRU:
    default:
      return;
  }
}

// The thread-level output operator of CUTLASS's broadcast epilogue (the interface of
// cutlass::epilogue::thread::LinearCombinationBiasElementwise): Z = epilogue(accumulator), with
// the source C as the residual and the broadcast vector V as each value's channel index. T (the
// pre-activation tensor CUTLASS can also store) is not stored.
template <class E, int N>
class ConvEpilogueOp {
 public:
  using ElementOutput = E;
  using ElementD = E;
  using ElementC = E;
  using ElementAccumulator = float;
  using ElementCompute = float;
  using ElementScalar = float;
  using ElementZ = E;
  using ElementT = E;
  using ElementVector = float;
  using ElementBias = float;
  static int const kCount = N;
  static bool const kIsSingleSource = true;
  static bool const kStoreZ = true;
  static bool const kStoreT = false;
  static bool const kIsHeavy = false;

  using FragmentAccumulator = cutlass::Array<float, N>;
  using FragmentCompute = cutlass::Array<float, N>;
  using FragmentC = cutlass::Array<E, N>;
  using FragmentZ = cutlass::Array<E, N>;
  using FragmentT = cutlass::Array<E, N>;
  using FragmentSource = FragmentC;
  using FragmentOutput = FragmentZ;
  using FragmentBias = cutlass::Array<float, N>;

  struct Params {
    EpilogueArgs e;
    int channels = 0;  // real output channels; the padded ones keep the plain sum
  };

  CUTLASS_HOST_DEVICE explicit ConvEpilogueOp(Params const& p) : p_(p) {}

  // The source (C) is the residual.
  CUTLASS_HOST_DEVICE bool is_source_needed() const { return p_.e.residual != nullptr; }

  // The forward kernel never splits the reduction (one slice, planned so).
  CUTLASS_HOST_DEVICE void set_k_partition(int, int) {}

  CUTLASS_DEVICE void operator()(FragmentZ& z, FragmentT&, FragmentAccumulator const& ab,
                                 FragmentC const& c, FragmentCompute const& v) const {
    FragmentCompute r;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i)
      r[i] = affine(ab[i], static_cast<float>(c[i]), v[i]);
    finish(z, r);
  }

  CUTLASS_DEVICE void operator()(FragmentZ& z, FragmentT&, FragmentAccumulator const& ab,
                                 FragmentCompute const& v) const {
    FragmentCompute r;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i)
      r[i] = affine(ab[i], 0.0f, v[i]);
    finish(z, r);
  }

 private:
  // The contract's order up to the activation (fused_epilogue.cuh's apply_epilogue).
  CUTLASS_DEVICE float affine(float acc, float zv, float channel) const {
    const int k = static_cast<int>(channel);
    if (k >= p_.channels) return acc;
    const EpilogueArgs& e = p_.e;
    if (e.scale) acc *= __ldg(e.scale + k);
    if (e.residual) acc += e.residual_alpha * zv;
    if (e.shift) acc += __ldg(e.shift + k);
    return acc;
  }

  CUTLASS_DEVICE void finish(FragmentZ& z, FragmentCompute& r) const {
    activate_all<N>(p_.e.mode, r, p_.e.params);
    z = cutlass::NumericArrayConverter<E, float, N>()(r);
  }

  // A reference: the kernel builds the operator from its own parameters (kernel parameter
  // space, alive for the whole kernel), as CUTLASS's operators keep their elementwise
  // arguments; read from there, the pointers and the mode cost no registers.
  Params const& p_;
};

// The forward kernel of implicit_gemm_tc_fwd.cu with the broadcast epilogue.
template <class E>
using FusedKernel = typename cutlass::conv::kernel::DefaultConv2dFpropWithBroadcast<
    E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC,
    float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, typename TileConfig<E>::Threadblock,
    typename TileConfig<E>::Warp, typename TileConfig<E>::Instruction,
    ConvEpilogueOp<E, kAlignment<E>>, cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>,
    TileConfig<E>::kStages, cutlass::arch::OpMultiplyAdd,
    cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;
template <class E>
using FusedOp = cutlass::conv::device::ImplicitGemmConvolution<FusedKernel<E>>;

// Arguments for packed NHWC operands; C is the residual (or y itself, never read without one).
template <class Op>
typename Op::Arguments fused_arguments(const cutlass::conv::Conv2dProblemSize& ps, const void* a,
                                       const void* b, void* d, const EpilogueArgs& e, int channels,
                                       const float* index) {
  using namespace cutlass::conv;
  constexpr Operator kOp = Op::kConvolutionalOperator;
  using EA = typename Op::ElementA;
  using EB = typename Op::ElementB;
  using EC = typename Op::ElementC;
  const typename Op::LayoutA la = Op::LayoutA::packed(implicit_gemm_tensor_a_extent(kOp, ps));
  const typename Op::LayoutB lb = Op::LayoutB::packed(implicit_gemm_tensor_b_extent(kOp, ps));
  const typename Op::LayoutC lc = Op::LayoutC::packed(implicit_gemm_tensor_c_extent(kOp, ps));
  auto* pd = static_cast<EC*>(d);
  auto* pc = e.residual ? static_cast<EC*>(const_cast<void*>(e.residual)) : pd;
  typename Op::EpilogueOutputOp::Params op_params;
  op_params.e = e;
  op_params.channels = channels;
  return typename Op::Arguments(ps, {const_cast<EA*>(static_cast<const EA*>(a)), la},
                                {const_cast<EB*>(static_cast<const EB*>(b)), lb}, {pc, lc},
                                {pd, lc}, op_params, SplitKMode::kSerial, const_cast<float*>(index),
                                /*ptr_Tensor=*/nullptr, /*ldr=*/0,
                                /*ldt=*/0);
}

// out[b][s][r] = epilogue(in[b][r][s]) for r < R (pixels), s < S (channels), in's rows in_ld
// apart, out packed; the transpose of transpose_batched_kernel, typed, with the epilogue on
// the store (channel s, the residual at the output's offset).
__global__ void transpose_out_epilogue_kernel(const float* __restrict__ in, float* __restrict__ out,
                                              long long B, long long R, long long S,
                                              long long in_ld, EpilogueArgs e) {
  __shared__ float tile[32][33];  // +1 column: the column reads hit distinct banks
  const long long tiles_r = (R + 31) / 32;
  const long long tiles_s = (S + 31) / 32;
  const auto* z = static_cast<const float*>(e.residual);
  for (long long b = blockIdx.z; b < B; b += gridDim.z) {
    const float* src = in + b * R * in_ld;
    const long long image = b * S * R;
    for (long long tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
      for (long long ts = blockIdx.x; ts < tiles_s; ts += gridDim.x) {
        const long long s = ts * 32 + threadIdx.x;
        for (int i = threadIdx.y; i < 32; i += blockDim.y) {
          const long long r = tr * 32 + i;
          if (r < R && s < S) tile[i][threadIdx.x] = src[r * in_ld + s];
        }
        __syncthreads();
        const long long r = tr * 32 + threadIdx.x;
        for (int i = threadIdx.y; i < 32; i += blockDim.y) {
          const long long s2 = ts * 32 + i;
          if (r < R && s2 < S) {
            const long long o = image + s2 * R + r;
            out[o] = apply_epilogue(e, tile[threadIdx.x][i], s2, z ? z[o] : 0.0f);
          }
        }
        __syncthreads();
      }
    }
  }
}

// out (rows x cols, packed) = epilogue(in (rows x cols, rows ld_in apart)): the padded NHWC copy
// back, channel = column.
__global__ void unpad_out_epilogue_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          long long rows, long long cols, long long ld_in,
                                          EpilogueArgs e) {
  const long long total = rows * cols;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  const auto* z = static_cast<const float*>(e.residual);
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += step) {
    const long long r = i / cols, c = i - r * cols;
    out[i] = apply_epilogue(e, in[r * ld_in + c], c, z ? z[i] : 0.0f);
  }
}

}  // namespace

Applicability fprop_epilogue_can_implement(miopenDataType_t type,
                                           const cutlass::conv::Conv2dProblemSize& ps) {
  return dispatch_element(type, [&](auto el) {
    using Op = FusedOp<decltype(el)>;
    const typename Op::Arguments args =
        fused_arguments<Op>(ps, nullptr, nullptr, nullptr, EpilogueArgs{}, ps.K, nullptr);
    const cutlass::Status s = Op::can_implement(args);
    if (s == cutlass::Status::kSuccess) return Applicability::yes();
    return Applicability::no(std::string("CUTLASS cannot implement the fused epilogue: ") +
                             cutlass::cutlassGetStatusString(s));
  });
}

void run_fprop_epilogue(miopenDataType_t type, const cutlass::conv::Conv2dProblemSize& ps,
                        const void* x, const void* w, void* y, const EpilogueArgs& e, int channels,
                        const float* index, cudaStream_t stream) {
  dispatch_element(type, [&](auto el) {
    using Op = FusedOp<decltype(el)>;
    Op op;
    const typename Op::Arguments args = fused_arguments<Op>(ps, x, w, y, e, channels, index);
    // One slice, serial: no workspace.
    cutlass::Status s = op.initialize(args, nullptr, stream);
    if (s == cutlass::Status::kSuccess) s = op.run(stream);
    ANYDNN_CHECK(s == cutlass::Status::kSuccess, miopenStatusInternalError,
                 "CUTLASS convolution with fused epilogue failed: "
                     << cutlass::cutlassGetStatusString(s) << " ("
                     << cudaGetErrorString(cudaGetLastError()) << ")");
  });
}

void stage_out_epilogue(bool nchw, size_t rows, size_t hw, size_t c, size_t cp, const float* staged,
                        float* user, const EpilogueArgs& e, cudaStream_t stream) {
  if (rows == 0 || hw == 0 || c == 0) return;
  const auto ll = [](size_t v) { return static_cast<long long>(v); };
  if (nchw) {
    const size_t tiles_r = (hw + 31) / 32, tiles_s = (c + 31) / 32;
    const dim3 grid(static_cast<unsigned>(std::min<size_t>(tiles_s, 1u << 30)),
                    static_cast<unsigned>(std::min<size_t>(tiles_r, 65535)),
                    static_cast<unsigned>(std::min<size_t>(rows, 65535)));
    transpose_out_epilogue_kernel<<<grid, dim3(32, 8), 0, stream>>>(staged, user, ll(rows), ll(hw),
                                                                    ll(c), ll(cp), e);
  } else {
    const size_t total = rows * hw * c;
    const unsigned grid = static_cast<unsigned>(std::min<size_t>((total + 255) / 256, 1u << 20));
    unpad_out_epilogue_kernel<<<grid, 256, 0, stream>>>(staged, user, ll(rows * hw), ll(c), ll(cp),
                                                        e);
  }
  ANYDNN_CUDA_LAUNCHED("tensor-core conv: copy back with the fused epilogue");
}

}  // namespace anydnn::cuda::tc
