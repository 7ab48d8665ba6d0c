// BnPerActivation: per-activation batch norm (statistics of every (c, d, h, w) over the batch)
// on data whose per-image block is packed, channel-major (NCHW, NCDHW) or channel-last (NHWC,
// NDHWC, run as the same problem with its dimensions listed in memory order); the image stride
// is free. Threads take blocks of positions; a block (N x 1024 values) stays in
// L2 across its passes: sum over images, squared deviations, then the output, so x is read
// from memory once. A fused activation (bn_activation.hpp) is applied to each image's row of the
// block before it is stored, or replaces dy by its derivative in both backward passes.
#include <omp.h>

#include <algorithm>

#include "backend/cpu/bn/bn_activation.hpp"
#include "backend/cpu/bn/bn_util.hpp"
#include "backend/cpu/kernels/bn_rows.hpp"
#include "bn/bn_layout.hpp"
#include "bn/bn_registry.hpp"
#include "bn/bn_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void run_blocks(const BnProblem& p, const BnBuffers& b, const BnRowOps& ops, BnCall& call,
                int threads, const BnActivationRows* act) {
  const long N = static_cast<long>(p.batch());
  const long P = static_cast<long>(p.groups());
  const size_t xn = p.x().strides()[0], yn = p.y().strides()[0];
  const bool bwd = p.direction() == BnDirection::Backward;
  const size_t dxn = bwd ? p.dx().strides()[0] : 0;
  const T* x = static_cast<const T*>(b.x);
  // Block width: N rows of it fill about 1 MiB of L2, and long rows (up to 64 KiB) keep the
  // hardware prefetcher streaming; at least two blocks per thread when there is enough work.
  const long width =
      std::clamp(std::min(262144L / N, (P + 2 * threads - 1) / (2 * threads)), 256L, 16384L);
  const long kBlock = width;
  const long blocks = (P + kBlock - 1) / kBlock;
  // Per thread: 6 vectors of a block (sums, mean or coefficients), 3 staging rows and the
  // coefficients of bn(x) for a fused activation's derivative.
  BnScratch scratch(threads, 12, kBlock);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long blk = 0; blk < blocks; ++blk) {
    const int t = omp_get_thread_num();
    const long p0 = blk * kBlock, len = std::min(kBlock, P - p0);
    float* s = scratch.get(t, 0);
    float* q = scratch.get(t, 1);
    float* mean = scratch.get(t, 2);
    float* ka = scratch.get(t, 3);
    float* kb = scratch.get(t, 4);
    float* kc = scratch.get(t, 5);
    float* b0 = scratch.get(t, 6);
    float* b1 = scratch.get(t, 7);
    float* b2 = scratch.get(t, 8);
    float* fa = scratch.get(t, 9);
    float* fm = scratch.get(t, 10);
    float* fb = scratch.get(t, 11);
    if (call.needs_stats()) {
      std::fill(s, s + len, 0.0f);
      std::fill(q, q + len, 0.0f);
      for (long n = 0; n < N; ++n)
        ops.lane_add(s, load_run(x + n * xn + p0, len, b0), len);
      const float inv = 1.0f / static_cast<float>(N);
      for (long i = 0; i < len; ++i)
        mean[i] = s[i] * inv;
      std::fill(s, s + len, 0.0f);  // now the deviations from the rounded mean
      for (long n = 0; n < N; ++n)
        ops.lane_add_dev(s, q, load_run(x + n * xn + p0, len, b0), mean, len);
      call.set_stats_range(static_cast<size_t>(p0), len, mean, s, q);
    }
    if (!bwd) {
      call.forward_coefs_range(static_cast<size_t>(p0), len, ka, kc, kb);
      T* y = static_cast<T*>(b.y);
      for (long n = 0; n < N; ++n) {
        T* yr = y + n * yn + p0;
        float* out = out_run(yr, b1, call.plain_output());
        ops.lane_affine(load_run(x + n * xn + p0, len, b0), ka, kc, kb, out, len);
        if (act != nullptr) act->forward(out, len);
        store_run(yr, out, len, call.alpha(), call.beta());
      }
      continue;
    }
    const T* dy = static_cast<const T*>(b.dy);
    for (long i = 0; i < len; ++i)
      mean[i] = call.mean_of(static_cast<size_t>(p0 + i));
    if (act != nullptr) call.forward_coefs_range(static_cast<size_t>(p0), len, fa, fm, fb);
    // Image n's dy as the passes read it: its derivative at bn(x) with an activation (in b1).
    const auto grad = [&](long n, const float* xr) {
      const float* g = load_run(dy + n * yn + p0, len, b1);
      if (act == nullptr) return g;
      act->backward(g, xr, fa, fm, fb, true, b1, len);
      return static_cast<const float*>(b1);
    };
    std::fill(s, s + len, 0.0f);
    std::fill(q, q + len, 0.0f);
    for (long n = 0; n < N; ++n) {
      const float* xr = load_run(x + n * xn + p0, len, b0);
      ops.lane_dy_sums(s, q, grad(n, xr), xr, mean, len);
    }
    call.set_backward_sums_range(static_cast<size_t>(p0), len, s, q);
    call.dx_coefs_range(static_cast<size_t>(p0), len, ka, kb, mean, kc);
    T* dx = static_cast<T*>(b.dx);
    for (long n = 0; n < N; ++n) {
      T* dxr = dx + n * dxn + p0;
      float* out = out_run(dxr, b2, call.plain_output());
      const float* xr = load_run(x + n * xn + p0, len, b0);
      ops.lane_dx(grad(n, xr), xr, ka, kb, mean, kc, out, len);
      store_run(dxr, out, len, call.alpha(), call.beta());
    }
  }
}

// The same problem seen in memory order: x as N x (D x) H x W x C "channel-major" data, and
// each parameter tensor as 1 x (D x) H x W x C with its own strides permuted to match, so that
// the statistics groups follow the data's addresses.
TensorDescriptor memory_order(const TensorDescriptor& t) {
  const auto& l = t.lens();
  const auto& s = t.strides();
  std::vector<size_t> lens = {l[0]}, strides = {s[0]};
  for (size_t k = 2; k < l.size(); ++k) {
    lens.push_back(l[k]);
    strides.push_back(s[k]);
  }
  lens.push_back(l[1]);
  strides.push_back(s[1]);
  return TensorDescriptor(t.type(), lens, strides);
}

class BnPerActivation final : public BnPerActivationSpec {
 public:
  Applicability activation_support(const ExecutionContext&, const BnProblem& p,
                                   miopenActivationMode_t) const override {
    return cpu_bn_activation_support(p);
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    if (!image_packed(p.x())) {
      // Channel-last: run the memory-order view of the problem (same buffers).
      const bool bwd = p.direction() == BnDirection::Backward;
      const TensorDescriptor x = memory_order(p.x()), y = memory_order(p.y());
      const TensorDescriptor dx = bwd ? memory_order(p.dx()) : TensorDescriptor();
      const TensorDescriptor sc = memory_order(p.scale()), bi = memory_order(p.bias()),
                             me = memory_order(p.mean()), va = memory_order(p.var());
      BnDescriptors d{&x, &y, bwd ? &dx : nullptr, &sc, &bi, &me, &va};
      const BnProblem inner(p.direction(), p.mode(), d, p.epsilon(), p.exp_avg_factor(), p.save(),
                            p.running());
      return run(ctx, inner, b);
    }
    BnCall call(p, b);
    const BnActivationRows act(b.activation, ctx.config.cpu_isa);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      run_blocks<decltype(tag)>(p, b, bn_row_ops(ctx.config.cpu_isa), call,
                                std::max(1, ctx.config.num_threads), act.active() ? &act : nullptr);
    });
    call.finish();
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_per_activation<BackendKind::Cpu>() {
  return std::make_unique<cpu::BnPerActivation>();
}

}  // namespace anydnn
