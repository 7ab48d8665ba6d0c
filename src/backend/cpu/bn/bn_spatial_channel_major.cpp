// BnSpatialChannelMajor: spatial batch norm on NCHW / NCDHW data (each (n, c) plane contiguous;
// the n and c strides are free). With at least as many channels as threads, one thread owns a
// block of channels from start to end: statistics, then the normalisation pass while the block
// is still in its L2 (ResNet-50 channels at N=32 are 6 KiB to 1.6 MiB), so x is read from
// memory once. Fewer channels than threads (e.g. 4 channels of 1024x2048 images) split each channel
// into chunks across threads with a separate combining step. A fused activation
// (bn_activation.hpp) is applied to each chunk in L1 before it is stored (forward), or replaces
// dy by its derivative chunk by chunk in both backward passes.
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

constexpr long kChunk = 4096;
constexpr long kStreamRun = 1024;
// Outputs above this size, in planes of at least kStreamRun values, are streamed past the caches
// (non-temporal stores: no read-for-ownership). Measured here: 112x112 and 56x56 x 256 channels
// at N=32 (100 MiB) gain 35%; 25-50 MiB tensors gain nothing (the 480 MiB L3 of the test
// machine holds them), and short planes (7x7, 14x14) lose badly to partial-line streaming.
constexpr size_t kStreamBytes =
    size_t{64} << 20;  // floats per run: 16 KiB, stays in L1 between the two passes

// n and c strides of a tensor whose spatial dimensions are packed (last stride 1).
struct PlaneStrides {
  size_t n, c;
};

// A piece of one channel: `runs` planes from image n0, or the piece [s0, s0 + len) of plane n0.
struct Batch {
  long n0, runs, s0, len;
};

// Every channel is cut the same way, in image order: whole planes, or kChunk pieces of large
// ones.
std::vector<Batch> make_batches(long N, long S) {
  std::vector<Batch> b;
  for (long n = 0; n < N; ++n)
    for (long s0 = 0; s0 < S; s0 += kChunk)
      b.push_back({n, 1, s0, std::min(kChunk, S - s0)});
  return b;
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
  std::vector<Batch> batches;
  // Outputs far larger than the caches are written with non-temporal stores.
  bool stream = false;
  const BnActivationRows* act = nullptr;  // a fused activation (null: none)

  const T* x_at(const Batch& q, long c) const {
    return static_cast<const T*>(b.x) + q.n0 * xs.n + c * xs.c + q.s0;
  }
  const T* dy_at(const Batch& q, long c) const {
    return static_cast<const T*>(b.dy) + q.n0 * ys.n + c * ys.c + q.s0;
  }
  T* y_at(const Batch& q, long c) const {
    return static_cast<T*>(b.y) + q.n0 * ys.n + c * ys.c + q.s0;
  }
  T* dx_at(const Batch& q, long c) const {
    return static_cast<T*>(b.dx) + q.n0 * dxs.n + c * dxs.c + q.s0;
  }

  // Statistics of one batch into (count, mean, m2).
  void batch_stats(const Batch& q, long c, float* buf, double& cnt, double& mean,
                   double& m2) const {
    long st;
    const float* x = load_runs(x_at(q, c), q.runs, q.len, static_cast<long>(xs.n), buf, st);
    double bm, bm2;
    ops.runs_mean_m2(x, q.runs, q.len, st, &bm, &bm2);
    BnCall::combine(cnt, mean, m2, static_cast<double>(q.runs * q.len), bm, bm2);
  }

  double batch_sum(const Batch& q, long c, float* buf) const {
    long st;
    const float* x = load_runs(x_at(q, c), q.runs, q.len, static_cast<long>(xs.n), buf, st);
    return ops.runs_sum(x, q.runs, q.len, st);
  }

  void batch_dev(const Batch& q, long c, float mean, float* buf, double* dev, double* sq) const {
    long st;
    const float* x = load_runs(x_at(q, c), q.runs, q.len, static_cast<long>(xs.n), buf, st);
    ops.runs_dev(x, q.runs, q.len, st, mean, dev, sq);
  }

  void batch_forward(const Batch& q, long c, const float* k, float* bx, float* by) const {
    long sx, sy;
    const float* x = load_runs(x_at(q, c), q.runs, q.len, static_cast<long>(xs.n), bx, sx);
    T* y = y_at(q, c);
    if (act != nullptr) {
      // bn(x) into y when it stays in cache, else into the L1 buffer; the activation there; then
      // (from the buffer) to y, streamed or blended.
      const bool in_y = std::is_same_v<T, float> && call.plain_output() && !stream;
      float* out = in_y ? reinterpret_cast<float*>(y) : by;
      sy = in_y ? static_cast<long>(ys.n) : q.len;
      ops.runs_affine(x, sx, q.runs, q.len, k[0], k[1], k[2], out, sy, false);
      for (long r = 0; r < q.runs; ++r)
        act->forward(out + r * sy, q.len);
      if (in_y) return;
      if (std::is_same_v<T, float> && call.plain_output())
        ops.runs_copy(out, sy, q.runs, q.len, reinterpret_cast<float*>(y), static_cast<long>(ys.n),
                      true);
      else
        store_runs(y, static_cast<long>(ys.n), out, sy, q.runs, q.len, call.alpha(), call.beta());
      return;
    }
    float* out = out_runs(y, static_cast<long>(ys.n), by, q.len, call.plain_output(), sy);
    ops.runs_affine(x, sx, q.runs, q.len, k[0], k[1], k[2], out, sy,
                    stream && static_cast<const void*>(out) == y);
    store_runs(y, static_cast<long>(ys.n), out, sy, q.runs, q.len, call.alpha(), call.beta());
  }

  // dy as the BN passes read it: with a fused activation, its derivative at bn(x) (forward
  // coefficients fk), computed into bdy.
  const float* grad(const Batch& q, long c, const float* x, long sx, const float* fk, float* bdy,
                    long& sd) const {
    const float* dy = load_runs(dy_at(q, c), q.runs, q.len, static_cast<long>(ys.n), bdy, sd);
    if (act == nullptr) return dy;
    for (long r = 0; r < q.runs; ++r)
      act->backward(dy + r * sd, x + r * sx, &fk[0], &fk[1], &fk[2], false, bdy + r * q.len, q.len);
    sd = q.len;
    return bdy;
  }

  void batch_sums(const Batch& q, long c, float mean, const float* fk, float* bx, float* bdy,
                  double* s1, double* s2) const {
    long sx, sd;
    const float* x = load_runs(x_at(q, c), q.runs, q.len, static_cast<long>(xs.n), bx, sx);
    const float* dy = grad(q, c, x, sx, fk, bdy, sd);
    ops.runs_dy_sums(dy, sd, x, sx, q.runs, q.len, mean, s1, s2);
  }

  void batch_dx(const Batch& q, long c, const float* k, float* bx, float* bdy, float* bdx) const {
    long sx, sd, so;
    const float* x = load_runs(x_at(q, c), q.runs, q.len, static_cast<long>(xs.n), bx, sx);
    const float* dy = grad(q, c, x, sx, k + 4, bdy, sd);
    T* dx = dx_at(q, c);
    float* out = out_runs(dx, static_cast<long>(dxs.n), bdx, q.len, call.plain_output(), so);
    ops.runs_dx(dy, sd, x, sx, q.runs, q.len, k[0], k[1], k[2], k[3], out, so,
                stream && static_cast<const void*>(out) == dx);
    store_runs(dx, static_cast<long>(dxs.n), out, so, q.runs, q.len, call.alpha(), call.beta());
  }

  bool backward() const { return p.direction() == BnDirection::Backward; }

  // Starts loading the inputs of batch q of channel c into L2.
  void prefetch_batch(const Batch& q, long c) const {
    const long bytes = q.len * static_cast<long>(sizeof(T));
    for (long r = 0; r < q.runs; ++r) {
      const char* px = reinterpret_cast<const char*>(x_at(q, c) + r * xs.n);
      for (long o = 0; o < bytes; o += 64)
        __builtin_prefetch(px + o, 0, 2);
      if (backward()) {
        const char* pd = reinterpret_cast<const char*>(dy_at(q, c) + r * ys.n);
        for (long o = 0; o < bytes; o += 64)
          __builtin_prefetch(pd + o, 0, 2);
      }
    }
  }

  // Coefficients of channel c (kCoefs floats): forward {a, m, b}, backward {a, b, m, c} and,
  // with a fused activation, the forward ones of bn(x) at k + 4.
  static constexpr long kCoefs = 8;
  void coefs(long c, float* k) const {
    if (backward())
      call.dx_coefs(static_cast<size_t>(c), &k[0], &k[1], &k[2], &k[3]);
    else
      call.forward_coefs(static_cast<size_t>(c), &k[0], &k[1], &k[2]);
  }
  // The forward coefficients of bn(x) backward needs before its sums (activation only).
  void activation_coefs(long c, float* k) const {
    if (act != nullptr && backward())
      call.forward_coefs(static_cast<size_t>(c), &k[4], &k[5], &k[6]);
  }

  // Threads take blocks of channels and run every pass over a block back to back, so the later
  // passes read it from L2. A block is one channel for large maps; for small maps (7x7, 14x14)
  // it is as many channels as fit in about 512 KiB, walked image by image so that memory is
  // read in address order (one channel alone would be 32 scattered 196-byte pieces).
  void run_by_block() const {
    const long per_channel = N * S;
    const long cb =
        std::clamp(131072L / per_channel, 1L, std::max(1L, (C + 4 * threads - 1) / (4 * threads)));
    const long blocks = (C + cb - 1) / cb;
    const bool in_cache = cb * per_channel <= 131072L;
    BnScratch scratch(threads, 3, kChunk);
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      float* b0 = scratch.get(t, 0);
      float* b1 = scratch.get(t, 1);
      float* b2 = scratch.get(t, 2);
      std::vector<double> acc(static_cast<size_t>(cb) * 3);
      std::vector<float> k(static_cast<size_t>(cb) * kCoefs);
      // Contiguous block ranges per thread, so that a thread knows its next block and can
      // prefetch it into L2 while it writes the current one (reads and writes then overlap, as
      // in a copy, instead of alternating phases).
      const long lo = blocks * t / threads, hi = blocks * (t + 1) / threads;
      for (long blk = lo; blk < hi; ++blk) {
        const long c0 = blk * cb, c1 = std::min(C, c0 + cb);
        if (call.needs_stats() && in_cache) {
          // Exact two-pass statistics: the block is in L2 for the second pass.
          std::fill(acc.begin(), acc.end(), 0.0);
          for (const Batch& q : batches)
            for (long c = c0; c < c1; ++c)
              acc[(c - c0) * 3] += batch_sum(q, c, b0);
          for (long c = c0; c < c1; ++c)
            acc[(c - c0) * 3] /= static_cast<double>(per_channel);
          for (const Batch& q : batches)
            for (long c = c0; c < c1; ++c) {
              double d, sq;
              batch_dev(q, c, static_cast<float>(acc[(c - c0) * 3]), b0, &d, &sq);
              acc[(c - c0) * 3 + 1] += d;
              acc[(c - c0) * 3 + 2] += sq;
            }
          for (long c = c0; c < c1; ++c) {
            const double* a = &acc[(c - c0) * 3];
            const double m = static_cast<float>(a[0]), n = static_cast<double>(per_channel);
            call.set_stats(static_cast<size_t>(c), m + a[1] / n, a[2] - a[1] * a[1] / n);
          }
        } else if (call.needs_stats()) {
          // A channel larger than L2: one read, statistics per piece combined with Chan's rule.
          std::fill(acc.begin(), acc.end(), 0.0);
          for (const Batch& q : batches)
            for (long c = c0; c < c1; ++c) {
              double* a = &acc[(c - c0) * 3];
              batch_stats(q, c, b0, a[0], a[1], a[2]);
            }
          for (long c = c0; c < c1; ++c)
            call.set_stats(static_cast<size_t>(c), acc[(c - c0) * 3 + 1], acc[(c - c0) * 3 + 2]);
        }
        if (backward()) {
          std::fill(acc.begin(), acc.end(), 0.0);
          for (long c = c0; c < c1; ++c)
            activation_coefs(c, &k[(c - c0) * kCoefs]);
          for (const Batch& q : batches)
            for (long c = c0; c < c1; ++c) {
              double r1, r2;
              batch_sums(q, c, call.mean_of(static_cast<size_t>(c)), &k[(c - c0) * kCoefs + 4], b0,
                         b1, &r1, &r2);
              acc[(c - c0) * 3] += r1;
              acc[(c - c0) * 3 + 1] += r2;
            }
          for (long c = c0; c < c1; ++c)
            call.set_backward_sums(static_cast<size_t>(c), acc[(c - c0) * 3],
                                   acc[(c - c0) * 3 + 1]);
        }
        for (long c = c0; c < c1; ++c)
          coefs(c, &k[(c - c0) * kCoefs]);
        const bool prefetch = in_cache && blk + 1 < hi;
        for (const Batch& q : batches)
          for (long c = c0; c < c1; ++c) {
            if (backward())
              batch_dx(q, c, &k[(c - c0) * kCoefs], b0, b1, b2);
            else
              batch_forward(q, c, &k[(c - c0) * kCoefs], b0, b1);
            if (prefetch && c + cb < C) prefetch_batch(q, c + cb);
          }
      }
    }
  }

  // Fewer channels than threads: every pass split into (channel, batch) items across threads,
  // with the per-channel combining in between.
  void run_by_item() const {
    const long per_c = static_cast<long>(batches.size());
    const long items = C * per_c;
    BnScratch scratch(threads, 3, kChunk);
    std::vector<double> part(static_cast<size_t>(items) * 3);
    if (call.needs_stats()) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (long i = 0; i < items; ++i) {
        double* q = &part[static_cast<size_t>(i) * 3];
        q[0] = q[1] = q[2] = 0.0;
        batch_stats(batches[i % per_c], i / per_c, scratch.get(omp_get_thread_num(), 0), q[0], q[1],
                    q[2]);
      }
      for (long c = 0; c < C; ++c) {
        double cnt = 0, mean = 0, m2 = 0;
        for (long i = c * per_c; i < (c + 1) * per_c; ++i)
          BnCall::combine(cnt, mean, m2, part[i * 3], part[i * 3 + 1], part[i * 3 + 2]);
        call.set_stats(static_cast<size_t>(c), mean, m2);
      }
    }
    std::vector<float> k(static_cast<size_t>(C) * kCoefs);
    if (backward()) {
      for (long c = 0; c < C; ++c)
        activation_coefs(c, &k[c * kCoefs]);
#pragma omp parallel for schedule(static) num_threads(threads)
      for (long i = 0; i < items; ++i) {
        const int t = omp_get_thread_num();
        const long c = i / per_c;
        batch_sums(batches[i % per_c], c, call.mean_of(static_cast<size_t>(c)), &k[c * kCoefs + 4],
                   scratch.get(t, 0), scratch.get(t, 1), &part[i * 3], &part[i * 3 + 1]);
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
    for (long c = 0; c < C; ++c)
      coefs(c, &k[c * kCoefs]);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < items; ++i) {
      const int t = omp_get_thread_num();
      const long c = i / per_c;
      if (backward())
        batch_dx(batches[i % per_c], c, &k[c * kCoefs], scratch.get(t, 0), scratch.get(t, 1),
                 scratch.get(t, 2));
      else
        batch_forward(batches[i % per_c], c, &k[c * kCoefs], scratch.get(t, 0), scratch.get(t, 1));
    }
  }
};

class BnSpatialChannelMajor final : public BnSpatialChannelMajorSpec {
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
                       {},
                       make_batches(static_cast<long>(l[0]), static_cast<long>(p.spatial_size()))};
      if (p.direction() == BnDirection::Backward)
        planes.dxs = {p.dx().strides()[0], p.dx().strides()[1]};
      const TensorDescriptor& out = p.direction() == BnDirection::Backward ? p.dx() : p.y();
      planes.stream = out.element_space() * sizeof(T) > kStreamBytes && planes.S >= kStreamRun;
      planes.act = act.active() ? &act : nullptr;
      if (planes.C >= planes.threads)
        planes.run_by_block();
      else
        planes.run_by_item();
    });
    call.finish();
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<BnSolver> make_bn_spatial_channel_major<BackendKind::Cpu>() {
  return std::make_unique<cpu::BnSpatialChannelMajor>();
}

}  // namespace anydnn
