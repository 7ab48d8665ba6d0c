// BnPerActivation (CUDA): per-activation batch norm (statistics of every (c, d, h, w) over the
// batch) on data whose per-image block is packed, channel-major (NCHW, NCDHW) or channel-last
// (NHWC, NDHWC); the image stride is free. One thread owns one position from start to end:
// fp32 Welford statistics over the N images, the group outputs, backward sums, then the output
// rows. Consecutive threads take consecutive addresses of each image, so every pass is
// coalesced; there is no cross-thread reduction, hence no scratch memory and no atomics. A fused
// activation is applied to each output (forward) or to dy as it is read (backward, bn_util.cuh).
#include <algorithm>

#include "backend/cuda/bn/bn_util.cuh"
#include "bn/bn_layout.hpp"
#include "bn/bn_registry.hpp"
#include "bn/bn_solver_specs.hpp"

namespace anydnn::cuda {

namespace {

// q: a position's offset inside an image; its group (parameter index, c*S + s) is q itself for
// channel-major images and (q % C)*S + q / C for channel-last ones.
template <class T, bool kAct>
__global__ void __launch_bounds__(bn::kThreads)
    per_activation_kernel(bn::GroupArgs a, const T* __restrict__ x, const T* __restrict__ dy,
                          T* out, long long xn, long long yn, long long on, long long N,
                          long long C, long long S, bool last, float alpha, float beta) {
  const long long P = C * S;
  for (long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; q < P;
       q += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long g = last ? (q % C) * S + q / C : q;
    bn::GroupState s;
    if (a.needs_stats) {
      bn::Welford w;
      for (long long n = 0; n < N; ++n)
        w.add(load(x[n * xn + q]));
      const bn::Stat r = w.stat();
      bn::set_stats(a, g, r.mean, r.m2, s);
    } else {
      bn::load_stats(a, g, s);
    }
    if (a.dir == bn::Dir::Backward) {
      if constexpr (kAct) bn::activation_coefs(a, g, s);
      // dy, with the fused activation's derivative applied.
      const auto dy_at = [&](long long n, float xv) {
        const float d = load(dy[n * yn + q]);
        if constexpr (kAct) return bn::activation_dy(a, s.f, d, xv);
        return d;
      };
      const float mean = static_cast<float>(s.mean);
      float s1 = 0.0f, s2 = 0.0f;
      for (long long n = 0; n < N; ++n) {
        const float xv = load(x[n * xn + q]);
        const float d = dy_at(n, xv);
        s1 += d;
        s2 += d * (xv - mean);
      }
      bn::backward_coefs(a, g, s1, s2, s);
      for (long long n = 0; n < N; ++n) {
        const float xv = load(x[n * xn + q]);
        bn::put(out + n * on + q, bn::apply_backward(s.k, dy_at(n, xv), xv), alpha, beta);
      }
    } else {
      bn::forward_coefs(a, g, s);
      for (long long n = 0; n < N; ++n) {
        float v = bn::apply_forward(s.k, load(x[n * xn + q]));
        if constexpr (kAct) v = bn::activation_forward(a, v);
        bn::put(out + n * on + q, v, alpha, beta);
      }
    }
  }
}

class BnPerActivation final : public BnPerActivationSpec {
 public:
  Applicability activation_support(const ExecutionContext&, const BnProblem& p,
                                   miopenActivationMode_t mode) const override {
    return bn::activation_support(p, mode);
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    const cudaStream_t stream = backend_of(ctx).cuda_stream();
    const bn::GroupArgs a = bn::group_args(p, b);
    const bool bwd = a.dir == bn::Dir::Backward;
    // Both orders describe the same memory when C = 1 or S = 1; channel-major is then exact.
    const bool last = !image_packed(p.x());
    const long long N = static_cast<long long>(p.batch()), C = static_cast<long long>(p.channels());
    const long long S = static_cast<long long>(p.spatial_size());
    const long long xn = static_cast<long long>(p.x().strides()[0]);
    const long long yn = static_cast<long long>(p.y().strides()[0]);
    const long long on = static_cast<long long>((bwd ? p.dx() : p.y()).strides()[0]);
    const unsigned grid = grid_for(static_cast<size_t>(C * S), bn::kThreads);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const auto* x = static_cast<const T*>(b.x);
      const auto* dy = static_cast<const T*>(b.dy);
      auto* out = static_cast<T*>(bwd ? b.dx : b.y);
      if (a.act)
        per_activation_kernel<T, true><<<grid, bn::kThreads, 0, stream>>>(
            a, x, dy, out, xn, yn, on, N, C, S, last, b.alpha, b.beta);
      else
        per_activation_kernel<T, false><<<grid, bn::kThreads, 0, stream>>>(
            a, x, dy, out, xn, yn, on, N, C, S, last, b.alpha, b.beta);
    });
    ANYDNN_CUDA_LAUNCHED("BnPerActivation");
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_per_activation<BackendKind::Cuda>() {
  return std::make_unique<cuda::BnPerActivation>();
}

}  // namespace anydnn
