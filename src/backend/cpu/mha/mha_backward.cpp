// MhaBackward (CPU): per (n, h), five OpenBLAS sgemms around one row pass (mha/mha_math.hpp's
// backward formulas):
//   T = qk * Q K^T and dPd = dov * dO V^T;
//   per row: P = exp(T + bias - M) * ZInv (0 where the causal mask hides a key), the dropout
//   mask, dS = scale * P * (dP - Di) with Di = doo * sum(dO * O); T is overwritten by Pd and dPd
//   by dS;
//   dQ' = dq * dS K, dK' = dk * dS^T Q, dV' = dv * Pd^T dO, written scaled with their amaxes.
// (n, h) slices are spread over the threads when there are at least as many as threads
// (OpenBLAS single-threaded inside them); otherwise they run one after another with OpenBLAS's
// threads and the row pass split over rows. Each thread has its slot of the workspace.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "backend/cpu/kernels/isa_dispatch.hpp"
#include "backend/cpu/mha/mha_cpu.hpp"
#include "core/vector_math.hpp"
#include "mha/mha_registry.hpp"
#include "mha/mha_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

using mha_cpu::Operand;

struct Slot {
  size_t p, dp, di, q, k, v, d_o, dq, dk, dv, bias;
  size_t total() const {
    using mha_cpu::round16;
    return round16(p) + round16(dp) + round16(di) + round16(q) + round16(k) + round16(v) +
           round16(d_o) + round16(dq) + round16(dk) + round16(dv) + round16(bias);
  }
};

Slot slot_of(const MhaProblem& p) {
  const auto sq = static_cast<size_t>(p.seq_q()), sk = static_cast<size_t>(p.seq_k()),
             d = static_cast<size_t>(p.head_dim()), dv = static_cast<size_t>(p.value_dim());
  auto staged = [&](MhaTensor t, size_t n) { return mha_cpu::direct(p, t) ? 0 : n; };
  return {sq * sk,
          sq * sk,
          sq,
          staged(MhaTensor::Q, sq * d),
          staged(MhaTensor::K, sk * d),
          staged(MhaTensor::V, sk * dv),
          staged(MhaTensor::DO, sq * dv),
          sq * d,
          sk * d,
          sk * dv,
          p.has_bias() ? sq * sk : 0};
}

// Slices run in parallel (one slot per thread) when there are enough of them.
int slots_of(const ExecutionContext& ctx, const MhaProblem& p) {
  const int threads = std::max(1, ctx.config.num_threads);
  return p.batch_heads() >= threads ? threads : 1;
}

struct Amax {
  float dq = 0, dk = 0, dv = 0, ds = 0;
};

struct Buffers {
  float *p, *dp, *di, *q, *k, *v, *d_o, *dq, *dk, *dv, *bias;
};

Buffers carve(void* base, const Slot& s) {
  mha_cpu::Carver c(base);
  Buffers b;
  b.p = c.take(s.p);
  b.dp = c.take(s.dp);
  b.di = c.take(s.di);
  b.q = c.take(s.q);
  b.k = c.take(s.k);
  b.v = c.take(s.v);
  b.d_o = c.take(s.d_o);
  b.dq = c.take(s.dq);
  b.dk = c.take(s.dk);
  b.dv = c.take(s.dv);
  b.bias = c.take(s.bias);
  return b;
}

// One row of the pass: t (logits without bias) becomes Pd, dp (dPd) becomes dS. Returns max |dS|.
float backward_row(float* t, float* dp, const float* bias, long long cols, long long vis, float m,
                   float zinv, float di, const mha::Dropout& drop, uint64_t first, float scale) {
  float amax = 0.0f;
  for (long long j = 0; j < vis; ++j) {
    const float x = bias != nullptr ? t[j] + bias[j] : t[j];
    const float pr = vmath::exp(x - m) * zinv;
    const bool kept = drop.threshold == 0 || mha::keep(drop, first + static_cast<uint64_t>(j));
    const float dprob = kept ? dp[j] * drop.keep_scale : 0.0f;
    const float ds = scale * pr * (dprob - di);
    amax = std::max(amax, std::fabs(ds));
    t[j] = kept ? pr * drop.keep_scale : 0.0f;
    dp[j] = ds;
  }
  std::fill(t + vis, t + cols, 0.0f);
  std::fill(dp + vis, dp + cols, 0.0f);
  return amax;
}

class MhaBackwardCpu final : public MhaGemmSpec {
 public:
  MhaBackwardCpu() : MhaGemmSpec(MhaDirection::Backward, /*strided_operands=*/true) {}

  size_t workspace_size(const ExecutionContext& ctx, const MhaProblem& p) const override {
    return static_cast<size_t>(slots_of(ctx, p)) * slot_of(p).total() * sizeof(float) + 64;
  }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void* workspace) const override {
    const mha::Scalars sc = mha::load_scalars(b.scalars());
    const mha::Dropout drop = mha::make_dropout(sc);
    const mha::BackwardFactors f = mha::backward_factors(p.scale(), sc);
    const Slot slot = slot_of(p);
    const int slots = slots_of(ctx, p);
    const CpuIsa isa = ctx.config.cpu_isa;
    Amax total;
    if (slots > 1) {
      float dq = 0, dk = 0, dv = 0, ds = 0;
#pragma omp parallel num_threads(slots) reduction(max : dq, dk, dv, ds)
      {
        const Buffers w =
            carve(static_cast<char*>(workspace) +
                      static_cast<size_t>(omp_get_thread_num()) * slot.total() * sizeof(float),
                  slot);
#pragma omp for schedule(dynamic)
        for (long long nh = 0; nh < p.batch_heads(); ++nh) {
          const Amax a = run_slice(p, b, f, drop, isa, nh, w, 1);
          dq = std::max(dq, a.dq);
          dk = std::max(dk, a.dk);
          dv = std::max(dv, a.dv);
          ds = std::max(ds, a.ds);
        }
      }
      total = {dq, dk, dv, ds};
    } else {
      const Buffers w = carve(workspace, slot);
      for (long long nh = 0; nh < p.batch_heads(); ++nh) {
        const Amax a = run_slice(p, b, f, drop, isa, nh, w, std::max(1, ctx.config.num_threads));
        total.dq = std::max(total.dq, a.dq);
        total.dk = std::max(total.dk, a.dk);
        total.dv = std::max(total.dv, a.dv);
        total.ds = std::max(total.ds, a.ds);
      }
    }
    mha_cpu::write_scalar(b, MhaTensor::AmaxDQ, total.dq);
    mha_cpu::write_scalar(b, MhaTensor::AmaxDK, total.dk);
    mha_cpu::write_scalar(b, MhaTensor::AmaxDV, total.dv);
    mha_cpu::write_scalar(b, MhaTensor::AmaxDS, total.ds);
  }

 private:
  // One (n, h) slice; the row pass on `threads` threads (1 inside the parallel slices).
  static Amax run_slice(const MhaProblem& p, const MhaBuffers& b, const mha::BackwardFactors& f,
                        const mha::Dropout& drop, CpuIsa isa, long long nh, const Buffers& w,
                        int threads) {
    const long long n = nh / p.heads(), h = nh % p.heads();
    const long long sq = p.seq_q(), sk = p.seq_k(), d = p.head_dim(), dv = p.value_dim();
    const bool causal = b.causal();
    const Operand q = mha_cpu::operand(p, b, MhaTensor::Q, n, h, 0, sq, w.q);
    const Operand k = mha_cpu::operand(p, b, MhaTensor::K, n, h, 0, sk, w.k);
    const Operand v = mha_cpu::operand(p, b, MhaTensor::V, n, h, 0, sk, w.v);
    const Operand d_o = mha_cpu::operand(p, b, MhaTensor::DO, n, h, 0, sq, w.d_o);
    mha_cpu::gemm(false, true, sq, sk, d, f.qk, q, k, w.p, sk);
    mha_cpu::gemm(false, true, sq, sk, dv, f.dov, d_o, v, w.dp, sk);
    const MhaStrides ms = p.strides(MhaTensor::M), zs = p.strides(MhaTensor::ZInv);
    const float* m_in = b.as<const float>(MhaTensor::M);
    const float* z_in = b.as<const float>(MhaTensor::ZInv);
    Amax a;
    float amax_ds = 0.0f;
#pragma omp parallel for num_threads(threads) if (threads > 1) reduction(max : amax_ds)
    for (long long i = 0; i < sq; ++i) {
      float di = 0.0f;
      for (long long e = 0; e < dv; ++e)
        di += mha_cpu::load(p, b, MhaTensor::DO, n, h, i, e) *
              mha_cpu::load(p, b, MhaTensor::O, n, h, i, e);
      di *= f.doo;
      float* bias = nullptr;
      if (p.has_bias()) {
        bias = w.bias + i * sk;
        mha_cpu::load_row(p, b, MhaTensor::Bias, n, h, i, sk, bias);
      }
      const long long vis = causal ? std::min(sk, i + 1) : sk;
      const uint64_t first = static_cast<uint64_t>((nh * sq + i) * sk);
      const float m = m_in[mha_cpu::offset(ms, n, h, i, 0)];
      const float zinv = z_in[mha_cpu::offset(zs, n, h, i, 0)];
      with_isa(isa, [&] {
        amax_ds = std::max(amax_ds, backward_row(w.p + i * sk, w.dp + i * sk, bias, sk, vis, m,
                                                 zinv, di, drop, first, f.scale));
      });
    }
    a.ds = amax_ds;
    const Operand pd{w.p, sk}, ds{w.dp, sk};
    mha_cpu::gemm(false, false, sq, d, sk, f.dq, ds, k, w.dq, d);
    mha_cpu::gemm(true, false, sk, d, sq, f.dk, ds, q, w.dk, d);
    mha_cpu::gemm(true, false, sk, dv, sq, f.dv, pd, d_o, w.dv, dv);
    a.dq = mha_cpu::store_rows(p, b, MhaTensor::DQ, n, h, 0, sq, w.dq, d, f.scale_dq);
    a.dk = mha_cpu::store_rows(p, b, MhaTensor::DK, n, h, 0, sk, w.dk, d, f.scale_dk);
    a.dv = mha_cpu::store_rows(p, b, MhaTensor::DV, n, h, 0, sk, w.dv, dv, f.scale_dv);
    return a;
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_backward<BackendKind::Cpu>() {
  return std::make_unique<cpu::MhaBackwardCpu>();
}

}  // namespace anydnn
