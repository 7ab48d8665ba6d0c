// BnSpatialChannelLast (CUDA): spatial batch norm on NHWC / NDHWC data: each pixel is a
// contiguous row of C channels (pixel and image strides free). Reductions use 32 x 8 blocks: a
// warp reads 32 consecutive channels of one row (coalesced), the 8 warps and the row blocks
// stride over the N x S rows; each thread keeps fp32 Welford statistics (or backward sums) for
// its channel, the block combines its 8 rows of partials in order, and the per-block partials are
// merged per channel by one thread (Chan, double): no atomics, deterministic. The elementwise
// pass is one grid-stride kernel over the tensor in memory order. A fused activation (kAct
// instantiations) is applied in the forward store and to dy as the sums and backward kernels
// read it (bn_util.cuh): no extra pass.
#include <algorithm>

#include "backend/cuda/bn/bn_util.cuh"
#include "bn/bn_layout.hpp"
#include "bn/bn_registry.hpp"
#include "bn/bn_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

using bn::GroupState;
using bn::Stat;
using bn::Sums;

constexpr int kTileC = 32;  // channels per block (one warp across)
constexpr int kTileR = 8;   // rows per block step (warps)

// Image and pixel strides of x, y (or dy) and dx; the channel stride is 1.
struct Rows {
  long long xn, xp, yn, yp, dxn, dxp;
};

// Block (kTileC, kTileR); item = channel tile * rb + row block.
template <class T, class I>
__global__ void __launch_bounds__(kTileC* kTileR)
    stats_kernel(const T* __restrict__ x, Rows g, I R, I S, int C, long long items, int rb,
                 Stat* part) {
  __shared__ Stat sh[kTileR][kTileC];
  for (long long it = blockIdx.x; it < items; it += gridDim.x) {
    const long long tile = it / rb;
    const int b = static_cast<int>(it - tile * rb);
    const int c = static_cast<int>(tile) * kTileC + static_cast<int>(threadIdx.x);
    bn::Welford w;
    if (c < C)
      for (I r = static_cast<I>(b) * kTileR + threadIdx.y; r < R;
           r += static_cast<I>(rb) * kTileR) {
        const I n = r / S;
        w.add(load(
            x[static_cast<long long>(n) * g.xn + static_cast<long long>(r - n * S) * g.xp + c]));
      }
    sh[threadIdx.y][threadIdx.x] = w.stat();
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
      Stat v = sh[0][threadIdx.x];
      for (int k = 1; k < kTileR; ++k)
        v = bn::combine(v, sh[k][threadIdx.x]);
      part[static_cast<long long>(c) * rb + b] = v;
    }
    __syncthreads();
  }
}

template <class T, class I, bool kAct>
__global__ void __launch_bounds__(kTileC* kTileR)
    sums_kernel(const T* __restrict__ x, const T* __restrict__ dy, Rows g, I R, I S, int C,
                long long items, int rb, const GroupState* st, Sums* part, bn::GroupArgs a) {
  __shared__ Sums sh[kTileR][kTileC];
  for (long long it = blockIdx.x; it < items; it += gridDim.x) {
    const long long tile = it / rb;
    const int b = static_cast<int>(it - tile * rb);
    const int c = static_cast<int>(tile) * kTileC + static_cast<int>(threadIdx.x);
    float s1 = 0.0f, s2 = 0.0f;
    if (c < C) {
      const float mean = static_cast<float>(st[c].mean);
      float fk[4] = {};
      if constexpr (kAct)
        for (int i = 0; i < 4; ++i)
          fk[i] = st[c].f[i];
      for (I r = static_cast<I>(b) * kTileR + threadIdx.y; r < R;
           r += static_cast<I>(rb) * kTileR) {
        const long long n = r / S, s = r - static_cast<I>(n) * S;
        float d = load(dy[n * g.yn + s * g.yp + c]);
        const float xv = load(x[n * g.xn + s * g.xp + c]);
        if constexpr (kAct) d = bn::activation_dy(a, fk, d, xv);
        s1 += d;
        s2 += d * (xv - mean);
      }
    }
    sh[threadIdx.y][threadIdx.x] = Sums{s1, s2};
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
      Sums v = sh[0][threadIdx.x];
      for (int k = 1; k < kTileR; ++k)
        v = bn::combine(v, sh[k][threadIdx.x]);
      part[static_cast<long long>(c) * rb + b] = v;
    }
    __syncthreads();
  }
}

template <class T, class I, bool kAct>
__global__ void __launch_bounds__(bn::kThreads)
    forward_kernel(const T* __restrict__ x, T* y, Rows g, I S, I C, I total, const GroupState* st,
                   float alpha, float beta, bn::GroupArgs a) {
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const I r = i / C, c = i - r * C, n = r / S;
    const long long nl = n, sl = r - n * S;
    float v = bn::apply_forward(st[c].k, load(x[nl * g.xn + sl * g.xp + c]));
    if constexpr (kAct) v = bn::activation_forward(a, v);
    bn::put(y + nl * g.yn + sl * g.yp + c, v, alpha, beta);
  }
}

template <class T, class I, bool kAct>
__global__ void __launch_bounds__(bn::kThreads)
    backward_kernel(const T* __restrict__ x, const T* __restrict__ dy, T* dx, Rows g, I S, I C,
                    I total, const GroupState* st, float alpha, float beta, bn::GroupArgs a) {
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const I r = i / C, c = i - r * C, n = r / S;
    const long long nl = n, sl = r - n * S;
    float d = load(dy[nl * g.yn + sl * g.yp + c]);
    const float xv = load(x[nl * g.xn + sl * g.xp + c]);
    if constexpr (kAct) d = bn::activation_dy(a, st[c].f, d, xv);
    bn::put(dx + nl * g.dxn + sl * g.dxp + c, bn::apply_backward(st[c].k, d, xv), alpha, beta);
  }
}

template <class T, class I, bool kAct>
void run_typed(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) {
  const cudaStream_t stream = backend_of(ctx).cuda_stream();
  const bn::GroupArgs a = bn::group_args(p, b);
  const bool bwd = a.dir == bn::Dir::Backward;
  const long long N = static_cast<long long>(p.batch()), C = static_cast<long long>(p.channels());
  const long long S = static_cast<long long>(p.spatial_size()), R = N * S, total = R * C;
  Rows g{static_cast<long long>(p.x().strides()[0]),
         static_cast<long long>(pixel_stride(p.x())),
         static_cast<long long>(p.y().strides()[0]),
         static_cast<long long>(pixel_stride(p.y())),
         0,
         0};
  if (bwd) {
    g.dxn = static_cast<long long>(p.dx().strides()[0]);
    g.dxp = static_cast<long long>(pixel_stride(p.dx()));
  }
  // Row blocks per channel tile: about four blocks per SM in all, at least ~8 rows per thread,
  // at most 256 partials per channel.
  const long long tiles = (C + kTileC - 1) / kTileC;
  const long long sms = backend_of(ctx).properties().multiProcessorCount;
  const long long rb =
      std::clamp(std::min((4 * sms + tiles - 1) / tiles, R / (8 * kTileR)), 1LL, 256LL);
  const long long items = tiles * rb;
  bn::Scratch scratch(ctx, C, (a.needs_stats || bwd) ? C * rb : 0);
  GroupState* st = scratch.state();
  const T* x = static_cast<const T*>(b.x);
  const dim3 tile_block(kTileC, kTileR);

  if (a.needs_stats) {
    auto* part = static_cast<Stat*>(scratch.partials());
    stats_kernel<T, I><<<bn::item_grid(items), tile_block, 0, stream>>>(
        x, g, static_cast<I>(R), static_cast<I>(S), static_cast<int>(C), items,
        static_cast<int>(rb), part);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelLast stats");
    bn::finalize_stats(a, part, static_cast<int>(rb), st, stream);
  } else {
    bn::given_stats(a, st, stream);
  }
  const unsigned grid = grid_for(static_cast<size_t>(total), bn::kThreads);
  if (bwd) {
    auto* part = static_cast<Sums*>(scratch.partials());
    const T* dy = static_cast<const T*>(b.dy);
    sums_kernel<T, I, kAct><<<bn::item_grid(items), tile_block, 0, stream>>>(
        x, dy, g, static_cast<I>(R), static_cast<I>(S), static_cast<int>(C), items,
        static_cast<int>(rb), st, part, a);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelLast sums");
    bn::finalize_backward(a, part, static_cast<int>(rb), st, stream);
    backward_kernel<T, I, kAct><<<grid, bn::kThreads, 0, stream>>>(
        x, dy, static_cast<T*>(b.dx), g, static_cast<I>(S), static_cast<I>(C),
        static_cast<I>(total), st, b.alpha, b.beta, a);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelLast backward");
  } else {
    forward_kernel<T, I, kAct><<<grid, bn::kThreads, 0, stream>>>(
        x, static_cast<T*>(b.y), g, static_cast<I>(S), static_cast<I>(C), static_cast<I>(total), st,
        b.alpha, b.beta, a);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelLast forward");
  }
}

class BnSpatialChannelLast final : public BnSpatialChannelLastSpec {
 public:
  // The kernels index channels with int.
  Applicability applicable(const ExecutionContext& ctx, const BnProblem& p) const override {
    if (Applicability a = BnSpatialChannelLastSpec::applicable(ctx, p); !a) return a;
    ANYDNN_REJECT_IF(p.channels() >= (size_t{1} << 31), "more than 2^31 channels");
    return Applicability::yes();
  }
  Applicability activation_support(const ExecutionContext&, const BnProblem& p,
                                   miopenActivationMode_t mode) const override {
    return bn::activation_support(p, mode);
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    // 32-bit indices while every index, plus one grid stride, stays below 2^32.
    const bool small = p.x().element_count() < (size_t{1} << 31);
    const bool act = b.activation != nullptr;
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      if (small)
        act ? run_typed<T, unsigned, true>(ctx, p, b) : run_typed<T, unsigned, false>(ctx, p, b);
      else
        act ? run_typed<T, unsigned long long, true>(ctx, p, b)
            : run_typed<T, unsigned long long, false>(ctx, p, b);
    });
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_spatial_channel_last<BackendKind::Cuda>() {
  return std::make_unique<cuda::BnSpatialChannelLast>();
}

}  // namespace anydnn
