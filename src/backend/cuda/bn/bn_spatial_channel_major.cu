// BnSpatialChannelMajor (CUDA): spatial batch norm on NCHW / NCDHW data (each (n, c) plane
// contiguous; the n and c strides are free). Statistics: a few blocks per channel, each walking
// a grid-stride share of the channel's N x S values with fp32 Welford per thread, a fixed-order
// block reduction, and per-block partials merged per channel by one thread (Chan, double).
// Backward sums the same way around the channel mean; the elementwise pass is one grid-stride
// kernel over the whole tensor. Kernel sequence per call (all on the handle's stream):
//   stats -> finalize_stats (or given_stats) -> [backward sums -> finalize_backward] -> apply
#include <algorithm>

#include "backend/cuda/bn/bn_util.cuh"

namespace anydnn::cuda {

namespace {

using bn::GroupState;
using bn::kThreads;
using bn::Stat;
using bn::Sums;

// n and c strides of x, y (or dy) and dx.
struct Planes {
  long long xn, xc, yn, yc, dxn, dxc;
};

// I is the index type: 32-bit when the tensor has fewer than 2^31 elements (cheaper division).
template <class T, class I>
__global__ void __launch_bounds__(kThreads) stats_kernel(const T* __restrict__ x, Planes g, I per,
                                                         I S, long long items, int bc, Stat* part) {
  for (long long it = blockIdx.x; it < items; it += gridDim.x) {
    const long long c = it / bc;
    const I b = static_cast<I>(it - c * bc);
    const T* xc = x + c * g.xc;
    bn::Welford w;
    for (I j = b * blockDim.x + threadIdx.x; j < per; j += static_cast<I>(bc) * blockDim.x) {
      const I n = j / S;
      w.add(load(xc[static_cast<long long>(n) * g.xn + (j - n * S)]));
    }
    const Stat r = bn::block_reduce(w.stat());
    if (threadIdx.x == 0) part[it] = r;
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    sums_kernel(const T* __restrict__ x, const T* __restrict__ dy, Planes g, I per, I S,
                long long items, int bc, const GroupState* st, Sums* part) {
  for (long long it = blockIdx.x; it < items; it += gridDim.x) {
    const long long c = it / bc;
    const I b = static_cast<I>(it - c * bc);
    const float mean = static_cast<float>(st[c].mean);
    const T* xc = x + c * g.xc;
    const T* dyc = dy + c * g.yc;
    float s1 = 0.0f, s2 = 0.0f;
    for (I j = b * blockDim.x + threadIdx.x; j < per; j += static_cast<I>(bc) * blockDim.x) {
      const I n = j / S, s = j - n * S;
      const float d = load(dyc[static_cast<long long>(n) * g.yn + s]);
      s1 += d;
      s2 += d * (load(xc[static_cast<long long>(n) * g.xn + s]) - mean);
    }
    const Sums r = bn::block_reduce(Sums{s1, s2});
    if (threadIdx.x == 0) part[it] = r;
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    forward_kernel(const T* __restrict__ x, T* y, Planes g, I S, I C, I total, const GroupState* st,
                   float alpha, float beta) {
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const I nc = i / S, s = i - nc * S, n = nc / C, c = nc - n * C;
    const float v = bn::apply_forward(
        st[c].k, load(x[static_cast<long long>(n) * g.xn + static_cast<long long>(c) * g.xc + s]));
    bn::put(y + static_cast<long long>(n) * g.yn + static_cast<long long>(c) * g.yc + s, v, alpha,
            beta);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    backward_kernel(const T* __restrict__ x, const T* __restrict__ dy, T* dx, Planes g, I S, I C,
                    I total, const GroupState* st, float alpha, float beta) {
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const I nc = i / S, s = i - nc * S, n = nc / C, c = nc - n * C;
    const long long nl = n, cl = c;
    const float v = bn::apply_backward(st[c].k, load(dy[nl * g.yn + cl * g.yc + s]),
                                       load(x[nl * g.xn + cl * g.xc + s]));
    bn::put(dx + nl * g.dxn + cl * g.dxc + s, v, alpha, beta);
  }
}

bool spatial_contiguous(const TensorDescriptor& t) {
  const auto& l = t.lens();
  const auto& s = t.strides();
  size_t expect = 1;
  for (size_t k = l.size(); k-- > 2;) {
    if (l[k] != 1 && s[k] != expect) return false;
    expect *= l[k];
  }
  return true;
}

template <class T, class I>
void run_typed(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) {
  const cudaStream_t stream = backend_of(ctx).cuda_stream();
  const bn::GroupArgs a = bn::group_args(p, b);
  const bool bwd = a.dir == bn::Dir::Backward;
  const long long N = static_cast<long long>(p.batch()), C = static_cast<long long>(p.channels());
  const long long S = static_cast<long long>(p.spatial_size()), per = N * S, total = per * C;
  Planes g{static_cast<long long>(p.x().strides()[0]),
           static_cast<long long>(p.x().strides()[1]),
           static_cast<long long>(p.y().strides()[0]),
           static_cast<long long>(p.y().strides()[1]),
           0,
           0};
  if (bwd) {
    g.dxn = static_cast<long long>(p.dx().strides()[0]);
    g.dxc = static_cast<long long>(p.dx().strides()[1]);
  }
  // Blocks per channel: about four blocks per SM over all channels, but at least ~8 values per
  // thread, and at most 256 partials per channel for the one-thread merge.
  const long long sms = backend_of(ctx).properties().multiProcessorCount;
  const long long bc =
      std::clamp(std::min((4 * sms + C - 1) / C, per / (8 * kThreads)), 1LL, 256LL);
  const long long items = C * bc;
  bn::Scratch scratch(ctx, C, (a.needs_stats || bwd) ? items : 0);
  GroupState* st = scratch.state();
  const T* x = static_cast<const T*>(b.x);

  if (a.needs_stats) {
    auto* part = static_cast<Stat*>(scratch.partials());
    stats_kernel<T, I><<<bn::item_grid(items), kThreads, 0, stream>>>(
        x, g, static_cast<I>(per), static_cast<I>(S), items, static_cast<int>(bc), part);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor stats");
    bn::finalize_stats(a, part, static_cast<int>(bc), st, stream);
  } else {
    bn::given_stats(a, st, stream);
  }
  if (bwd) {
    auto* part = static_cast<Sums*>(scratch.partials());
    const T* dy = static_cast<const T*>(b.dy);
    sums_kernel<T, I><<<bn::item_grid(items), kThreads, 0, stream>>>(
        x, dy, g, static_cast<I>(per), static_cast<I>(S), items, static_cast<int>(bc), st, part);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor sums");
    bn::finalize_backward(a, part, static_cast<int>(bc), st, stream);
    backward_kernel<T, I><<<grid_for(static_cast<size_t>(total), kThreads), kThreads, 0, stream>>>(
        x, dy, static_cast<T*>(b.dx), g, static_cast<I>(S), static_cast<I>(C),
        static_cast<I>(total), st, b.alpha, b.beta);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor backward");
  } else {
    forward_kernel<T, I><<<grid_for(static_cast<size_t>(total), kThreads), kThreads, 0, stream>>>(
        x, static_cast<T*>(b.y), g, static_cast<I>(S), static_cast<I>(C), static_cast<I>(total), st,
        b.alpha, b.beta);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor forward");
  }
}

class BnSpatialChannelMajor final : public BnSolver {
 public:
  std::string_view name() const override { return "BnSpatialChannelMajor"; }
  Applicability applicable(const ExecutionContext&, const BnProblem& p) const override {
    ANYDNN_REJECT_IF(!p.spatial(), "per-activation mode");
    ANYDNN_REJECT_IF(!spatial_contiguous(p.x()) || !spatial_contiguous(p.y()) ||
                         (p.direction() == BnDirection::Backward && !spatial_contiguous(p.dx())),
                     "spatial dimensions are not contiguous (not NCHW / NCDHW)");
    return Applicability::yes();
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    // 32-bit indices while every index, plus one grid stride, stays below 2^32.
    const bool small = p.x().element_count() < (size_t{1} << 31);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      if (small)
        run_typed<T, unsigned>(ctx, p, b);
      else
        run_typed<T, unsigned long long>(ctx, p, b);
    });
  }
};

}  // namespace

std::unique_ptr<BnSolver> make_bn_spatial_channel_major() {
  return std::make_unique<BnSpatialChannelMajor>();
}

}  // namespace anydnn::cuda
