// BnStrided (CUDA): the fallback for data layouts the direct solvers do not walk (CHWN, padded or
// permuted strides). One block owns one group (a channel, or a (c, d, h, w) position) from start
// to end in a single kernel: fp32 Welford statistics over the group's values with a fixed-order
// block reduction, the group outputs by thread 0, backward sums likewise, then the output.
// Every element is addressed from its (n, c, d, h, w) index and the tensor's own strides, so
// any layout works; parallelism is only one block per group, which is the price of simplicity.
// A fused activation is applied to each output (forward) or to dy as it is read (backward).
#include "backend/cuda/bn/bn_util.cuh"
#include "bn/bn_layout.hpp"
#include "bn/bn_registry.hpp"
#include "bn/bn_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

struct Geometry {
  long long N, C, H, W, S;  // S = D*H*W
  Ncdhw x, y, dx;           // y: dy for backward
  bool spatial;
};

__device__ inline long long offset(const Ncdhw& t, const Geometry& g, long long n, long long c,
                                   long long s) {
  const long long hw = g.H * g.W, d = s / hw, r = s - d * hw, h = r / g.W, w = r - h * g.W;
  return n * t.s[0] + c * t.s[1] + d * t.s[2] + h * t.s[3] + w * t.s[4];
}

template <class T, bool kAct>
__global__ void __launch_bounds__(bn::kThreads)
    strided_kernel(bn::GroupArgs a, Geometry geo, const T* __restrict__ x, const T* __restrict__ dy,
                   T* out, float alpha, float beta) {
  __shared__ bn::GroupState sh;
  const bool bwd = a.dir == bn::Dir::Backward;
  const long long M = geo.spatial ? geo.N * geo.S : geo.N;
  for (long long grp = blockIdx.x; grp < a.groups; grp += gridDim.x) {
    // Value j of the group: (n, c, s).
    const long long c0 = geo.spatial ? grp : grp / geo.S, s0 = geo.spatial ? 0 : grp % geo.S;
    auto at = [&](const Ncdhw& t, long long j) {
      if (!geo.spatial) return offset(t, geo, j, c0, s0);
      const long long n = j / geo.S;
      return offset(t, geo, n, c0, j - n * geo.S);
    };
    if (a.needs_stats) {
      bn::Welford w;
      for (long long j = threadIdx.x; j < M; j += blockDim.x)
        w.add(load(x[at(geo.x, j)]));
      const bn::Stat r = bn::block_reduce(w.stat());
      if (threadIdx.x == 0) bn::set_stats(a, grp, r.mean, r.m2, sh);
    } else if (threadIdx.x == 0) {
      bn::load_stats(a, grp, sh);
    }
    if (kAct && threadIdx.x == 0) bn::activation_coefs(a, grp, sh);
    __syncthreads();
    float fk[4] = {};
    if constexpr (kAct)
      for (int i = 0; i < 4; ++i)
        fk[i] = sh.f[i];
    // dy, with the fused activation's derivative applied.
    const auto dy_at = [&](long long j, float xv) {
      const float d = load(dy[at(geo.y, j)]);
      if constexpr (kAct) return bn::activation_dy(a, fk, d, xv);
      return d;
    };
    if (bwd) {
      const float mean = static_cast<float>(sh.mean);
      float s1 = 0.0f, s2 = 0.0f;
      for (long long j = threadIdx.x; j < M; j += blockDim.x) {
        const float xv = load(x[at(geo.x, j)]);
        const float d = dy_at(j, xv);
        s1 += d;
        s2 += d * (xv - mean);
      }
      // block_reduce's barriers order every thread's read of sh.mean before thread 0 writes sh.
      const bn::Sums r = bn::block_reduce(bn::Sums{s1, s2});
      if (threadIdx.x == 0) bn::backward_coefs(a, grp, r.s1, r.s2, sh);
    } else if (threadIdx.x == 0) {
      bn::forward_coefs(a, grp, sh);
    }
    __syncthreads();
    const float k[4] = {sh.k[0], sh.k[1], sh.k[2], sh.k[3]};
    for (long long j = threadIdx.x; j < M; j += blockDim.x) {
      const float xv = load(x[at(geo.x, j)]);
      if (bwd) {
        bn::put(out + at(geo.dx, j), bn::apply_backward(k, dy_at(j, xv), xv), alpha, beta);
      } else {
        float v = bn::apply_forward(k, xv);
        if constexpr (kAct) v = bn::activation_forward(a, v);
        bn::put(out + at(geo.y, j), v, alpha, beta);
      }
    }
    __syncthreads();  // sh is rewritten for the next group
  }
}

class BnStrided final : public BnStridedSpec {
 public:
  Applicability activation_support(const ExecutionContext&, const BnProblem& p,
                                   miopenActivationMode_t mode) const override {
    return bn::activation_support(p, mode);
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    const cudaStream_t stream = backend_of(ctx).cuda_stream();
    const bn::GroupArgs a = bn::group_args(p, b);
    const bool bwd = a.dir == bn::Dir::Backward;
    const auto& l = p.x().lens();
    Geometry geo{};
    geo.N = static_cast<long long>(l[0]);
    geo.C = static_cast<long long>(l[1]);
    geo.H = static_cast<long long>(l[l.size() - 2]);
    geo.W = static_cast<long long>(l[l.size() - 1]);
    geo.S = static_cast<long long>(p.spatial_size());
    geo.x = strides_ncdhw(p.x());
    geo.y = strides_ncdhw(p.y());
    geo.dx = bwd ? strides_ncdhw(p.dx()) : Ncdhw{};
    geo.spatial = p.spatial();
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const auto* x = static_cast<const T*>(b.x);
      const auto* dy = static_cast<const T*>(b.dy);
      auto* out = static_cast<T*>(bwd ? b.dx : b.y);
      const unsigned grid = bn::item_grid(a.groups);
      if (a.act)
        strided_kernel<T, true>
            <<<grid, bn::kThreads, 0, stream>>>(a, geo, x, dy, out, b.alpha, b.beta);
      else
        strided_kernel<T, false>
            <<<grid, bn::kThreads, 0, stream>>>(a, geo, x, dy, out, b.alpha, b.beta);
    });
    ANYDNN_CUDA_LAUNCHED("BnStrided");
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_strided<BackendKind::Cuda>() {
  return std::make_unique<cuda::BnStrided>();
}

}  // namespace anydnn
