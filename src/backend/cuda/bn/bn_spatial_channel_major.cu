// BnSpatialChannelMajor (CUDA): spatial batch norm on NCHW / NCDHW data (each (n, c) plane
// contiguous; the n and c strides are free). Work is split into blocks of one channel each,
// `bc` blocks per channel (about eight blocks per SM over all channels); block b of channel c
// always walks the same vectors of the channel's N x S values, 16-byte loads when every plane
// is aligned and a multiple of the vector width long (else scalar, the same code with V = 1).
// Kernel sequence per call (all on the handle's stream):
//   training    stats -> forward (merges the stats partials itself)
//   inference   forward (coefficients from the estimates, or stats -> forward without them)
//   backward    [stats ->] sums (merges the stats partials) -> backward (merges the sums)
// The consumer kernel merges a channel's partials with a fixed-order block reduction, so every
// block of the channel derives bitwise the same coefficients; only block 0 writes the per-channel
// outputs (saved / running statistics, dscale / dbias). No atomics, no separate merge launch:
// against the old stats -> finalize -> apply sequence with scalar loads and two divisions per
// element, this moves the same bytes (x read twice in training) with one to two launches fewer
// and 4-8x more bytes in flight per thread, which is what bounded it (~1/3 of HBM bandwidth).
// A fused activation (kAct instantiations) is applied in the forward kernel's store and to dy as
// the sums and backward kernels read it (bn_util.cuh): no extra pass.
#include <algorithm>
#include <cstdint>

#include "backend/cuda/bn/bn_util.cuh"
#include "bn/bn_layout.hpp"
#include "bn/bn_registry.hpp"
#include "bn/bn_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

using bn::GroupState;
using bn::kThreads;
using bn::Stat;
using bn::Sums;

// Geometry in vectors of V values: strides of x, y (or dy) and dx in elements, N planes of Sv
// vectors per channel, bc blocks per channel; a block's stride over the channel's vectors,
// bc * kThreads, is qn planes plus rs vectors (no division in the loops).
struct Geo {
  long long xn, xc, yn, yc, dxn, dxc;
  long long N, Sv, items;
  long long qn, rs;
  int bc;
};

template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

template <int V, class T>
__device__ inline void load_vec(const T* p, float (&f)[V]) {
  const Pack<T, V> q = *reinterpret_cast<const Pack<T, V>*>(p);
#pragma unroll
  for (int k = 0; k < V; ++k)
    f[k] = load(q.v[k]);
}

// As bn::put on V values: *p = alpha * v + beta * *p (beta 0 ignores the old contents).
template <int V, class T>
__device__ inline void put_vec(T* p, const float (&v)[V], float alpha, float beta) {
  Pack<T, V> q;
  if (beta != 0.0f) q = *reinterpret_cast<const Pack<T, V>*>(p);
#pragma unroll
  for (int k = 0; k < V; ++k)
    q.v[k] = store<T>(beta == 0.0f ? alpha * v[k] : alpha * v[k] + beta * load(q.v[k]));
  *reinterpret_cast<Pack<T, V>*>(p) = q;
}

// Calls f(n, s) (plane, element offset in the plane) for the vectors block b of a channel owns:
// vector j = b * kThreads + thread, stepping by bc * kThreads.
template <int V, class F>
__device__ inline void walk(const Geo& g, int b, F&& f) {
  const long long j0 = static_cast<long long>(b) * kThreads + threadIdx.x;
  long long n = j0 / g.Sv, s = j0 - n * g.Sv;
  while (n < g.N) {
    f(n, s * V);
    s += g.rs;
    n += g.qn;
    if (s >= g.Sv) {
      s -= g.Sv;
      ++n;
    }
  }
}

// Merges the bc partials of a channel (bc <= kThreads) in a fixed tree order; valid in thread 0.
template <class P>
__device__ inline P merge_partials(const P* p, int bc) {
  P v{};
  if (static_cast<int>(threadIdx.x) < bc) v = p[threadIdx.x];
  return bn::block_reduce(v);
}

// Only block 0 of a channel writes the per-channel outputs; the others compute the same values.
__device__ inline bn::GroupArgs quiet_unless(const bn::GroupArgs& a, bool writer) {
  bn::GroupArgs q = a;
  if (!writer) q.save = q.running = false;
  return q;
}

template <class T, int V>
__global__ void __launch_bounds__(kThreads)
    stats_kernel(const T* __restrict__ x, Geo g, Stat* part) {
  for (long long it = blockIdx.x; it < g.items; it += gridDim.x) {
    const long long c = it / g.bc;
    const int b = static_cast<int>(it - c * g.bc);
    const T* xc = x + c * g.xc;
    bn::Welford w;
    walk<V>(g, b, [&](long long n, long long o) {
      float f[V];
      load_vec<V>(xc + n * g.xn + o, f);
#pragma unroll
      for (int k = 0; k < V; ++k)
        w.add(f[k]);
    });
    const Stat r = bn::block_reduce(w.stat());
    if (threadIdx.x == 0) part[it] = r;
  }
}

// Forward (training, or inference): coefficients from the stats partials when given, else from
// the estimates; then y for the block's share of the channel.
template <class T, int V, bool kAct>
__global__ void __launch_bounds__(kThreads)
    forward_kernel(const T* __restrict__ x, T* y, Geo g, bn::GroupArgs a, const Stat* part,
                   float alpha, float beta) {
  __shared__ float k[4];
  for (long long it = blockIdx.x; it < g.items; it += gridDim.x) {
    const long long c = it / g.bc;
    const int b = static_cast<int>(it - c * g.bc);
    GroupState s;
    if (part) {
      const Stat r = merge_partials(part + c * g.bc, g.bc);
      if (threadIdx.x == 0) bn::set_stats(quiet_unless(a, b == 0), c, r.mean, r.m2, s);
    } else if (threadIdx.x == 0) {
      bn::load_stats(a, c, s);
    }
    if (threadIdx.x == 0) {
      bn::forward_coefs(a, c, s);
      for (int i = 0; i < 4; ++i)
        k[i] = s.k[i];
    }
    __syncthreads();
    const float kk[4] = {k[0], k[1], k[2], k[3]};
    const T* xc = x + c * g.xc;
    T* yc = y + c * g.yc;
    walk<V>(g, b, [&](long long n, long long o) {
      float f[V];
      load_vec<V>(xc + n * g.xn + o, f);
#pragma unroll
      for (int i = 0; i < V; ++i) {
        f[i] = bn::apply_forward(kk, f[i]);
        if constexpr (kAct) f[i] = bn::activation_forward(a, f[i]);
      }
      put_vec<V>(yc + n * g.yn + o, f, alpha, beta);
    });
    __syncthreads();  // k is rewritten by the next item
  }
}

// Backward sums around the channel mean (from the stats partials, or the saved statistics);
// block 0 of each channel also leaves mean / inverse std in st for the backward kernel.
template <class T, int V, bool kAct>
__global__ void __launch_bounds__(kThreads)
    sums_kernel(const T* __restrict__ x, const T* __restrict__ dy, Geo g, bn::GroupArgs a,
                const Stat* stat_part, GroupState* st, Sums* part) {
  __shared__ float mean_sh;
  __shared__ float f_sh[4];  // kAct: forward coefficients (bn(x) for the activation)
  for (long long it = blockIdx.x; it < g.items; it += gridDim.x) {
    const long long c = it / g.bc;
    const int b = static_cast<int>(it - c * g.bc);
    GroupState s;
    if (stat_part) {
      const Stat r = merge_partials(stat_part + c * g.bc, g.bc);
      if (threadIdx.x == 0) bn::set_stats(a, c, r.mean, r.m2, s);  // backward: writes nothing
    } else if (threadIdx.x == 0) {
      bn::load_stats(a, c, s);
    }
    if (threadIdx.x == 0) {
      mean_sh = static_cast<float>(s.mean);
      if constexpr (kAct) {
        bn::activation_coefs(a, c, s);
        for (int i = 0; i < 4; ++i)
          f_sh[i] = s.f[i];
      }
      if (b == 0) st[c] = s;
    }
    __syncthreads();
    const float mean = mean_sh;
    float fk[4] = {};
    if constexpr (kAct)
      for (int i = 0; i < 4; ++i)
        fk[i] = f_sh[i];
    const T* xc = x + c * g.xc;
    const T* dyc = dy + c * g.yc;
    float s1 = 0.0f, s2 = 0.0f;
    walk<V>(g, b, [&](long long n, long long o) {
      float fx[V], fd[V];
      load_vec<V>(dyc + n * g.yn + o, fd);
      load_vec<V>(xc + n * g.xn + o, fx);
#pragma unroll
      for (int i = 0; i < V; ++i) {
        if constexpr (kAct) fd[i] = bn::activation_dy(a, fk, fd[i], fx[i]);
        s1 += fd[i];
        s2 += fd[i] * (fx[i] - mean);
      }
    });
    const Sums r = bn::block_reduce(Sums{s1, s2});
    if (threadIdx.x == 0) part[it] = r;
  }
}

template <class T, int V, bool kAct>
__global__ void __launch_bounds__(kThreads)
    backward_kernel(const T* __restrict__ x, const T* __restrict__ dy, T* dx, Geo g,
                    bn::GroupArgs a, const GroupState* st, const Sums* part, float alpha,
                    float beta) {
  __shared__ float k[8];  // backward coefficients, then (kAct) the forward ones
  for (long long it = blockIdx.x; it < g.items; it += gridDim.x) {
    const long long c = it / g.bc;
    const int b = static_cast<int>(it - c * g.bc);
    const Sums r = merge_partials(part + c * g.bc, g.bc);
    if (threadIdx.x == 0) {
      GroupState s = st[c];
      bn::backward_coefs(a, c, r.s1, r.s2, s, b == 0);
      for (int i = 0; i < 4; ++i) {
        k[i] = s.k[i];
        k[4 + i] = kAct ? s.f[i] : 0.0f;
      }
    }
    __syncthreads();
    const float kk[4] = {k[0], k[1], k[2], k[3]};
    const float fk[4] = {k[4], k[5], k[6], k[7]};
    const T* xc = x + c * g.xc;
    const T* dyc = dy + c * g.yc;
    T* dxc = dx + c * g.dxc;
    walk<V>(g, b, [&](long long n, long long o) {
      float fx[V], fd[V];
      load_vec<V>(dyc + n * g.yn + o, fd);
      load_vec<V>(xc + n * g.xn + o, fx);
#pragma unroll
      for (int i = 0; i < V; ++i) {
        if constexpr (kAct) fd[i] = bn::activation_dy(a, fk, fd[i], fx[i]);
        fx[i] = bn::apply_backward(kk, fd[i], fx[i]);
      }
      put_vec<V>(dxc + n * g.dxn + o, fx, alpha, beta);
    });
    __syncthreads();
  }
}

bool aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

template <class T, int V, bool kAct>
void launch(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b, Geo g) {
  const cudaStream_t stream = backend_of(ctx).cuda_stream();
  const bn::GroupArgs a = bn::group_args(p, b);
  const bool bwd = a.dir == bn::Dir::Backward;
  const long long C = static_cast<long long>(p.channels());
  const long long stride = static_cast<long long>(g.bc) * kThreads;
  g.qn = stride / g.Sv;
  g.rs = stride - g.qn * g.Sv;
  const long long items = g.items;
  // Stat partials, then (backward) the Sums partials after them: the sums kernel reads the one
  // while writing the other.
  bn::Scratch scratch(ctx, C, (a.needs_stats ? items : 0) + (bwd ? items : 0));
  auto* stat_part = a.needs_stats ? static_cast<Stat*>(scratch.partials()) : nullptr;
  const unsigned grid = bn::item_grid(items);
  const T* x = static_cast<const T*>(b.x);
  if (a.needs_stats) {
    stats_kernel<T, V><<<grid, kThreads, 0, stream>>>(x, g, stat_part);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor stats");
  }
  if (bwd) {
    auto* sums = reinterpret_cast<Sums*>(static_cast<Stat*>(scratch.partials()) +
                                         (a.needs_stats ? items : 0));
    const T* dy = static_cast<const T*>(b.dy);
    sums_kernel<T, V, kAct>
        <<<grid, kThreads, 0, stream>>>(x, dy, g, a, stat_part, scratch.state(), sums);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor sums");
    backward_kernel<T, V, kAct><<<grid, kThreads, 0, stream>>>(
        x, dy, static_cast<T*>(b.dx), g, a, scratch.state(), sums, b.alpha, b.beta);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor backward");
  } else {
    forward_kernel<T, V, kAct>
        <<<grid, kThreads, 0, stream>>>(x, static_cast<T*>(b.y), g, a, stat_part, b.alpha, b.beta);
    ANYDNN_CUDA_LAUNCHED("BnSpatialChannelMajor forward");
  }
}

template <class T>
void run_typed(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) {
  const bool bwd = p.direction() == BnDirection::Backward;
  const long long N = static_cast<long long>(p.batch()), C = static_cast<long long>(p.channels());
  const long long S = static_cast<long long>(p.spatial_size()), per = N * S;
  Geo g{};
  g.xn = static_cast<long long>(p.x().strides()[0]);
  g.xc = static_cast<long long>(p.x().strides()[1]);
  g.yn = static_cast<long long>(p.y().strides()[0]);
  g.yc = static_cast<long long>(p.y().strides()[1]);
  if (bwd) {
    g.dxn = static_cast<long long>(p.dx().strides()[0]);
    g.dxc = static_cast<long long>(p.dx().strides()[1]);
  }
  g.N = N;
  // Blocks per channel: about eight blocks per SM over all channels (enough 16-byte loads in
  // flight to cover HBM latency), at least ~8 values per thread, at most kThreads partials per
  // channel (one per thread in the merge).
  const long long sms = backend_of(ctx).properties().multiProcessorCount;
  g.bc = static_cast<int>(
      std::clamp(std::min((8 * sms + C - 1) / C, per / (8 * kThreads)), 1LL, 1LL * kThreads));
  g.items = C * g.bc;
  // 16-byte vectors when every plane of every tensor starts aligned and holds whole vectors.
  constexpr int V = static_cast<int>(16 / sizeof(T));
  const bool vec = S % V == 0 && aligned16(b.x) && aligned16(bwd ? b.dy : b.y) &&
                   (!bwd || aligned16(b.dx)) && g.xn % V == 0 && g.xc % V == 0 && g.yn % V == 0 &&
                   g.yc % V == 0 && g.dxn % V == 0 && g.dxc % V == 0;
  g.Sv = vec ? S / V : S;
  if (b.activation)
    vec ? launch<T, V, true>(ctx, p, b, g) : launch<T, 1, true>(ctx, p, b, g);
  else
    vec ? launch<T, V, false>(ctx, p, b, g) : launch<T, 1, false>(ctx, p, b, g);
}

class BnSpatialChannelMajor final : public BnSpatialChannelMajorSpec {
 public:
  Applicability activation_support(const ExecutionContext&, const BnProblem& p,
                                   miopenActivationMode_t mode) const override {
    return bn::activation_support(p, mode);
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    dispatch_float_type(p.data_type(), [&](auto tag) { run_typed<decltype(tag)>(ctx, p, b); });
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_spatial_channel_major<BackendKind::Cuda>() {
  return std::make_unique<cuda::BnSpatialChannelMajor>();
}

}  // namespace anydnn
