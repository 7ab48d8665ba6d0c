// BnSpatialChannelLast: spatial batch norm on NHWC / NDHWC data: each pixel is a contiguous
// row of C channels, so the loops run across channels with per-channel coefficient vectors.
// Statistics: threads take blocks of pixel rows; a block is small enough to stay in L1/L2 for
// its two passes (sum, then squared deviations from the block mean) and blocks combine with
// Chan's formula in double. Then one pass writes y (or dx). x is read twice from memory: the
// statistics of every channel need every pixel before the first output. A fused activation
// (bn_activation.hpp) is applied to each pixel row before it is stored, or replaces dy by its
// derivative row by row in both backward passes.
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
struct Rows {
  const BnProblem& p;
  const BnBuffers& b;
  const BnRowOps& ops;
  BnCall& call;
  int threads;
  long N, S, C;
  size_t xn, xp, yn, yp, dxn, dxp;        // image and pixel strides
  const BnActivationRows* act = nullptr;  // a fused activation (null: none)
  std::vector<float> fk;                  // its forward coefficients a[C], m[C], b[C] (backward)

  // Backward with an activation: the per-channel coefficients of bn(x).
  void activation_coefs() {
    if (act == nullptr || p.direction() != BnDirection::Backward) return;
    fk.resize(static_cast<size_t>(C) * 3);
    for (long c = 0; c < C; ++c)
      call.forward_coefs(static_cast<size_t>(c), &fk[c], &fk[C + c], &fk[2 * C + c]);
  }
  // dy of row r as the passes read it (its derivative at bn(x) with an activation), in buf.
  const float* grad_row(long r, const float* x, float* buf) const {
    const float* dy = load_run(dy_row(r), C, buf);
    if (act == nullptr) return dy;
    act->backward(dy, x, fk.data(), fk.data() + C, fk.data() + 2 * C, true, buf, C);
    return buf;
  }

  long rows() const { return N * S; }
  const T* x_row(long r) const { return static_cast<const T*>(b.x) + (r / S) * xn + (r % S) * xp; }
  const T* dy_row(long r) const {
    return static_cast<const T*>(b.dy) + (r / S) * yn + (r % S) * yp;
  }
  T* y_row(long r) const { return static_cast<T*>(b.y) + (r / S) * yn + (r % S) * yp; }
  T* dx_row(long r) const { return static_cast<T*>(b.dx) + (r / S) * dxn + (r % S) * dxp; }

  // Rows per block: about 64 KiB of data, and at most 64 rows so that the float partial sums
  // (one term per row) stay accurate before they move to double.
  long block_rows() const { return std::clamp(16384L / C, 4L, 64L); }

  void stats() const {
    const long R = block_rows(), total = rows();
    const long blocks = (total + R - 1) / R;
    // Per thread: count, mean[C], m2[C] in double; per block: sum / m2 floats and staging.
    std::vector<double> acc(static_cast<size_t>(threads) * (2 * C + 1), 0.0);
    BnScratch scratch(threads, 4, static_cast<size_t>(C));
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      double* cnt = &acc[static_cast<size_t>(t) * (2 * C + 1)];
      double* mean = cnt + 1;
      double* m2 = mean + C;
      float* s = scratch.get(t, 0);
      float* q = scratch.get(t, 1);
      float* bm = scratch.get(t, 2);
      float* buf = scratch.get(t, 3);
#pragma omp for schedule(static)
      for (long blk = 0; blk < blocks; ++blk) {
        const long r0 = blk * R, r1 = std::min(total, r0 + R);
        std::fill(s, s + C, 0.0f);
        std::fill(q, q + C, 0.0f);
        for (long r = r0; r < r1; ++r)
          ops.lane_add(s, load_run(x_row(r), C, buf), C);
        const float inv = 1.0f / static_cast<float>(r1 - r0);
        for (long c = 0; c < C; ++c)
          bm[c] = s[c] * inv;
        std::fill(s, s + C, 0.0f);  // now the deviations from the rounded block mean
        for (long r = r0; r < r1; ++r)
          ops.lane_add_dev(s, q, load_run(x_row(r), C, buf), bm, C);
        // Chan's combination with the block, for all channels at once: the counts are the same
        // for every channel, so the factors are computed once (no division per channel).
        const double nb = static_cast<double>(r1 - r0), n = *cnt, tot = n + nb;
        const double inv_nb = 1.0 / nb, f_mean = nb / tot, f_m2 = n * nb / tot;
        for (long c = 0; c < C; ++c) {
          const double dev = s[c];
          const double bmean = bm[c] + dev * inv_nb, bm2 = q[c] - dev * dev * inv_nb;
          const double delta = bmean - mean[c];
          mean[c] += delta * f_mean;
          m2[c] += bm2 + delta * delta * f_m2;
        }
        *cnt = tot;
      }
    }
    for (long c = 0; c < C; ++c) {
      double n = 0, mean = 0, m2 = 0;
      for (int t = 0; t < threads; ++t) {
        const double* a = &acc[static_cast<size_t>(t) * (2 * C + 1)];
        BnCall::combine(n, mean, m2, a[0], a[1 + c], a[1 + C + c]);
      }
      call.set_stats(static_cast<size_t>(c), mean, m2);
    }
  }

  void backward_sums() const {
    const long R = block_rows(), total = rows();
    const long blocks = (total + R - 1) / R;
    std::vector<double> acc(static_cast<size_t>(threads) * 2 * C, 0.0);
    std::vector<float> mean(static_cast<size_t>(C));
    for (long c = 0; c < C; ++c)
      mean[c] = call.mean_of(static_cast<size_t>(c));
    BnScratch scratch(threads, 4, static_cast<size_t>(C));
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      double* s1 = &acc[static_cast<size_t>(t) * 2 * C];
      double* s2 = s1 + C;
      float* s = scratch.get(t, 0);
      float* sx = scratch.get(t, 1);
      float* bx = scratch.get(t, 2);
      float* bdy = scratch.get(t, 3);
#pragma omp for schedule(static)
      for (long blk = 0; blk < blocks; ++blk) {
        const long r0 = blk * R, r1 = std::min(total, r0 + R);
        std::fill(s, s + C, 0.0f);
        std::fill(sx, sx + C, 0.0f);
        for (long r = r0; r < r1; ++r) {
          const float* xr = load_run(x_row(r), C, bx);
          ops.lane_dy_sums(s, sx, grad_row(r, xr, bdy), xr, mean.data(), C);
        }
        for (long c = 0; c < C; ++c) {
          s1[c] += s[c];
          s2[c] += sx[c];
        }
      }
    }
    for (long c = 0; c < C; ++c) {
      double a = 0, bb = 0;
      for (int t = 0; t < threads; ++t) {
        a += acc[static_cast<size_t>(t) * 2 * C + c];
        bb += acc[static_cast<size_t>(t) * 2 * C + C + c];
      }
      call.set_backward_sums(static_cast<size_t>(c), a, bb);
    }
  }

  void apply() const {
    const bool bwd = p.direction() == BnDirection::Backward;
    std::vector<float> k(static_cast<size_t>(C) * 4);
    float *ka = k.data(), *kb = ka + C, *km = kb + C, *kc = km + C;
    for (long c = 0; c < C; ++c) {
      if (bwd)
        call.dx_coefs(c, &ka[c], &kb[c], &km[c], &kc[c]);
      else
        call.forward_coefs(c, &ka[c], &km[c], &kb[c]);
    }
    BnScratch scratch(threads, 3, static_cast<size_t>(C));
    const long total = rows();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long r = 0; r < total; ++r) {
      const int t = omp_get_thread_num();
      if (bwd) {
        T* dx = dx_row(r);
        float* out = out_run(dx, scratch.get(t, 2), call.plain_output());
        const float* xr = load_run(x_row(r), C, scratch.get(t, 0));
        ops.lane_dx(grad_row(r, xr, scratch.get(t, 1)), xr, ka, kb, km, kc, out, C);
        store_run(dx, out, C, call.alpha(), call.beta());
      } else {
        T* y = y_row(r);
        float* out = out_run(y, scratch.get(t, 1), call.plain_output());
        ops.lane_affine(load_run(x_row(r), C, scratch.get(t, 0)), ka, km, kb, out, C);
        if (act != nullptr) act->forward(out, C);
        store_run(y, out, C, call.alpha(), call.beta());
      }
    }
  }
};

class BnSpatialChannelLast final : public BnSpatialChannelLastSpec {
 public:
  Applicability activation_support(const ExecutionContext&, const BnProblem& p,
                                   miopenActivationMode_t) const override {
    return cpu_bn_activation_support(p);
  }
  void run(const ExecutionContext& ctx, const BnProblem& p, const BnBuffers& b) const override {
    BnCall call(p, b);
    const BnActivationRows act(b.activation, ctx.config.cpu_isa);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const bool bwd = p.direction() == BnDirection::Backward;
      Rows<T> rows{p,
                   b,
                   bn_row_ops(ctx.config.cpu_isa),
                   call,
                   std::max(1, ctx.config.num_threads),
                   static_cast<long>(p.batch()),
                   static_cast<long>(p.spatial_size()),
                   static_cast<long>(p.channels()),
                   p.x().strides()[0],
                   pixel_stride(p.x()),
                   p.y().strides()[0],
                   pixel_stride(p.y()),
                   bwd ? p.dx().strides()[0] : 0,
                   bwd ? pixel_stride(p.dx()) : 0,
                   nullptr,
                   {}};
      rows.act = act.active() ? &act : nullptr;
      if (call.needs_stats()) rows.stats();
      rows.activation_coefs();
      if (bwd) rows.backward_sums();
      rows.apply();
    });
    call.finish();
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_spatial_channel_last<BackendKind::Cpu>() {
  return std::make_unique<cpu::BnSpatialChannelLast>();
}

}  // namespace anydnn
