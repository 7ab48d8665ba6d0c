// BnSpatialChannelMajor: spatial batch norm on NCHW / NCDHW data (each (n, c) plane contiguous;
// the n and c strides are free). With at least as many channels as threads, one thread owns a
// channel from start to end: statistics, then the normalisation pass while the channel is
// still in its L2 (ResNet-50 channels at N=32 are 6 KiB to 1.6 MiB), so x is read from memory
// once. Fewer channels than threads (e.g. 4 channels of 1024x2048 images) split each channel
// into chunks across threads with a separate combining step.
#include <omp.h>

#include <algorithm>

#include "backend/cpu/bn/bn_util.hpp"
#include "backend/cpu/kernels/bn_rows.hpp"

namespace anydnn::cpu {

namespace {

constexpr long kChunk = 4096;  // floats per run: 16 KiB, stays in L1 between the two passes

// n and c strides of a tensor whose spatial dimensions are packed (last stride 1).
struct PlaneStrides {
  size_t n, c;
};

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

template <class T>
struct Planes {
  const BnProblem& p;
  const BnBuffers& b;
  const BnRowOps& ops;
  BnCall& call;
  int threads;
  long S, N, C;
  PlaneStrides xs, ys, dxs;

  const T* x_at(long n, long c) const { return static_cast<const T*>(b.x) + n * xs.n + c * xs.c; }
  const T* dy_at(long n, long c) const { return static_cast<const T*>(b.dy) + n * ys.n + c * ys.c; }
  T* y_at(long n, long c) const { return static_cast<T*>(b.y) + n * ys.n + c * ys.c; }
  T* dx_at(long n, long c) const { return static_cast<T*>(b.dx) + n * dxs.n + c * dxs.c; }

  // Statistics of one run into (count, mean, m2).
  void run_stats(const T* x, long len, float* buf, double& cnt, double& mean, double& m2) const {
    double rm, rm2;
    ops.run_mean_m2(load_run(x, len, buf), len, &rm, &rm2);
    BnCall::combine(cnt, mean, m2, static_cast<double>(len), rm, rm2);
  }

  void channel_stats(long c, float* buf) const {
    double cnt = 0, mean = 0, m2 = 0;
    for (long n = 0; n < N; ++n)
      for (long s0 = 0; s0 < S; s0 += kChunk)
        run_stats(x_at(n, c) + s0, std::min(kChunk, S - s0), buf, cnt, mean, m2);
    call.set_stats(static_cast<size_t>(c), mean, m2);
  }

  void channel_forward(long c, float* bx, float* by) const {
    float a, m, bb;
    call.forward_coefs(static_cast<size_t>(c), &a, &m, &bb);
    for (long n = 0; n < N; ++n)
      for (long s0 = 0; s0 < S; s0 += kChunk) {
        const long len = std::min(kChunk, S - s0);
        T* y = y_at(n, c) + s0;
        float* out = out_run(y, by, call.plain_output());
        ops.run_affine(load_run(x_at(n, c) + s0, len, bx), len, a, m, bb, out);
        store_run(y, out, len, call.alpha(), call.beta());
      }
  }

  void channel_sums(long c, float* bx, float* bdy) const {
    double s1 = 0, s2 = 0;
    const float mean = call.mean_of(static_cast<size_t>(c));
    for (long n = 0; n < N; ++n)
      for (long s0 = 0; s0 < S; s0 += kChunk) {
        const long len = std::min(kChunk, S - s0);
        double r1, r2;
        ops.run_dy_sums(load_run(dy_at(n, c) + s0, len, bdy), load_run(x_at(n, c) + s0, len, bx),
                        len, mean, &r1, &r2);
        s1 += r1;
        s2 += r2;
      }
    call.set_backward_sums(static_cast<size_t>(c), s1, s2);
  }

  void channel_dx(long c, float* bx, float* bdy, float* bdx) const {
    float a, bb, m, cc;
    call.dx_coefs(static_cast<size_t>(c), &a, &bb, &m, &cc);
    for (long n = 0; n < N; ++n)
      for (long s0 = 0; s0 < S; s0 += kChunk) {
        const long len = std::min(kChunk, S - s0);
        T* dx = dx_at(n, c) + s0;
        float* out = out_run(dx, bdx, call.plain_output());
        ops.run_dx(load_run(dy_at(n, c) + s0, len, bdy), load_run(x_at(n, c) + s0, len, bx), len, a,
                   bb, m, cc, out);
        store_run(dx, out, len, call.alpha(), call.beta());
      }
  }

  // One thread per channel: every pass over a channel back to back.
  void run_by_channel() const {
    BnScratch scratch(threads, 3, kChunk);
    const bool fwd = p.direction() != BnDirection::Backward;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (long c = 0; c < C; ++c) {
      const int t = omp_get_thread_num();
      float* b0 = scratch.get(t, 0);
      float* b1 = scratch.get(t, 1);
      float* b2 = scratch.get(t, 2);
      if (call.needs_stats()) channel_stats(c, b0);
      if (fwd) {
        channel_forward(c, b0, b1);
      } else {
        channel_sums(c, b0, b1);
        channel_dx(c, b0, b1, b2);
      }
    }
  }

  // Few channels: every pass split into (channel, image, chunk) items across threads.
  void run_by_chunk() const {
    const long chunks = (S + kChunk - 1) / kChunk;
    const long per_c = N * chunks;
    const long items = C * per_c;
    BnScratch scratch(threads, 3, kChunk);
    std::vector<double> part(static_cast<size_t>(items) * 3);
    auto item = [&](long i, long& c, long& n, long& s0, long& len) {
      c = i / per_c;
      n = (i % per_c) / chunks;
      s0 = (i % chunks) * kChunk;
      len = std::min(kChunk, S - s0);
    };
    if (call.needs_stats()) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (long i = 0; i < items; ++i) {
        long c, n, s0, len;
        item(i, c, n, s0, len);
        double* q = &part[static_cast<size_t>(i) * 3];
        q[0] = q[1] = q[2] = 0.0;
        run_stats(x_at(n, c) + s0, len, scratch.get(omp_get_thread_num(), 0), q[0], q[1], q[2]);
      }
      for (long c = 0; c < C; ++c) {
        double cnt = 0, mean = 0, m2 = 0;
        for (long i = c * per_c; i < (c + 1) * per_c; ++i)
          BnCall::combine(cnt, mean, m2, part[i * 3], part[i * 3 + 1], part[i * 3 + 2]);
        call.set_stats(static_cast<size_t>(c), mean, m2);
      }
    }
    if (p.direction() == BnDirection::Backward) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (long i = 0; i < items; ++i) {
        long c, n, s0, len;
        item(i, c, n, s0, len);
        const int t = omp_get_thread_num();
        ops.run_dy_sums(load_run(dy_at(n, c) + s0, len, scratch.get(t, 1)),
                        load_run(x_at(n, c) + s0, len, scratch.get(t, 0)), len,
                        call.mean_of(static_cast<size_t>(c)), &part[i * 3], &part[i * 3 + 1]);
      }
      for (long c = 0; c < C; ++c) {
        double s1 = 0, s2 = 0;
        for (long i = c * per_c; i < (c + 1) * per_c; ++i) {
          s1 += part[i * 3];
          s2 += part[i * 3 + 1];
        }
        call.set_backward_sums(static_cast<size_t>(c), s1, s2);
      }
    }
    std::vector<float> coef(static_cast<size_t>(C) * 4);
    for (long c = 0; c < C; ++c) {
      if (p.direction() == BnDirection::Backward)
        call.dx_coefs(c, &coef[c * 4], &coef[c * 4 + 1], &coef[c * 4 + 2], &coef[c * 4 + 3]);
      else
        call.forward_coefs(c, &coef[c * 4], &coef[c * 4 + 1], &coef[c * 4 + 2]);
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < items; ++i) {
      long c, n, s0, len;
      item(i, c, n, s0, len);
      const int t = omp_get_thread_num();
      const float* k = &coef[c * 4];
      if (p.direction() == BnDirection::Backward) {
        T* dx = dx_at(n, c) + s0;
        float* out = out_run(dx, scratch.get(t, 2), call.plain_output());
        ops.run_dx(load_run(dy_at(n, c) + s0, len, scratch.get(t, 1)),
                   load_run(x_at(n, c) + s0, len, scratch.get(t, 0)), len, k[0], k[1], k[2], k[3],
                   out);
        store_run(dx, out, len, call.alpha(), call.beta());
      } else {
        T* y = y_at(n, c) + s0;
        float* out = out_run(y, scratch.get(t, 1), call.plain_output());
        ops.run_affine(load_run(x_at(n, c) + s0, len, scratch.get(t, 0)), len, k[0], k[1], k[2],
                       out);
        store_run(y, out, len, call.alpha(), call.beta());
      }
    }
  }
};

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
    BnCall call(p, b);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const auto& l = p.x().lens();
      Planes<T> planes{p,
                       b,
                       bn_row_ops(ctx.config.cpu_isa),
                       call,
                       std::max(1, ctx.config.num_threads),
                       static_cast<long>(p.spatial_size()),
                       static_cast<long>(l[0]),
                       static_cast<long>(l[1]),
                       {p.x().strides()[0], p.x().strides()[1]},
                       {p.y().strides()[0], p.y().strides()[1]},
                       {}};
      if (p.direction() == BnDirection::Backward)
        planes.dxs = {p.dx().strides()[0], p.dx().strides()[1]};
      if (planes.C >= planes.threads)
        planes.run_by_channel();
      else
        planes.run_by_chunk();
    });
    call.finish();
  }
};

}  // namespace

std::unique_ptr<BnSolver> make_bn_spatial_channel_major() {
  return std::make_unique<BnSpatialChannelMajor>();
}

}  // namespace anydnn::cpu
