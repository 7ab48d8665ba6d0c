// MhaNaiveBackward (CPU): the fallback. Per (n, h) slice, the attention row pass element by
// element through the tensors' strides (any layout, any type), then dQ, dK, dV as plain sums;
// slices spread over the threads. Needs no workspace (Pd and dS of a slice on the heap).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/mha/mha_cpu.hpp"
#include "mha/mha_registry.hpp"
#include "mha/mha_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

using mha_cpu::load;

struct Amax {
  float dq = 0, dk = 0, dv = 0, ds = 0;
};

class MhaNaiveBackwardCpu final : public MhaNaiveSpec {
 public:
  MhaNaiveBackwardCpu() : MhaNaiveSpec(MhaDirection::Backward) {}

  size_t workspace_size(const ExecutionContext&, const MhaProblem&) const override { return 0; }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void*) const override {
    const mha::Scalars sc = mha::load_scalars(b.scalars());
    const mha::Dropout drop = mha::make_dropout(sc);
    const mha::BackwardFactors f = mha::backward_factors(p.scale(), sc);
    const int threads =
        static_cast<int>(std::min<long long>(ctx.config.num_threads, p.batch_heads()));
    float dq = 0, dk = 0, dv = 0, ds = 0;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static) \
    reduction(max                                                               \
              : dq, dk, dv, ds)
    for (long long nh = 0; nh < p.batch_heads(); ++nh) {
      const Amax a = slice(p, b, f, drop, nh);
      dq = std::max(dq, a.dq);
      dk = std::max(dk, a.dk);
      dv = std::max(dv, a.dv);
      ds = std::max(ds, a.ds);
    }
    mha_cpu::write_scalar(b, MhaTensor::AmaxDQ, dq);
    mha_cpu::write_scalar(b, MhaTensor::AmaxDK, dk);
    mha_cpu::write_scalar(b, MhaTensor::AmaxDV, dv);
    mha_cpu::write_scalar(b, MhaTensor::AmaxDS, ds);
  }

 private:
  static Amax slice(const MhaProblem& p, const MhaBuffers& b, const mha::BackwardFactors& f,
                    const mha::Dropout& drop, long long nh) {
    const long long n = nh / p.heads(), h = nh % p.heads();
    const long long sq = p.seq_q(), sk = p.seq_k(), d = p.head_dim(), dv = p.value_dim();
    const bool causal = b.causal();
    std::vector<float> pd(static_cast<size_t>(sq * sk)), ds(pd.size()),
        row(static_cast<size_t>(std::max(d, dv)));
    Amax a;
    for (long long i = 0; i < sq; ++i) {
      float di = 0.0f;
      for (long long e = 0; e < dv; ++e)
        di += load(p, b, MhaTensor::DO, n, h, i, e) * load(p, b, MhaTensor::O, n, h, i, e);
      di *= f.doo;
      const float m = load(p, b, MhaTensor::M, n, h, i, 0);
      const float zinv = load(p, b, MhaTensor::ZInv, n, h, i, 0);
      for (long long j = 0; j < sk; ++j) {
        float& pdij = pd[i * sk + j];
        float& dsij = ds[i * sk + j];
        pdij = dsij = 0.0f;
        if (!mha::visible(causal, i, j)) continue;
        float dot = 0.0f, dpd = 0.0f;
        for (long long e = 0; e < d; ++e)
          dot += load(p, b, MhaTensor::Q, n, h, i, e) * load(p, b, MhaTensor::K, n, h, j, e);
        for (long long e = 0; e < dv; ++e)
          dpd += load(p, b, MhaTensor::DO, n, h, i, e) * load(p, b, MhaTensor::V, n, h, j, e);
        const float t =
            f.qk * dot + (p.has_bias() ? load(p, b, MhaTensor::Bias, n, h, i, j) : 0.0f);
        const float pr = std::exp(t - m) * zinv;
        const bool kept = mha::keep(drop, static_cast<uint64_t>((nh * sq + i) * sk + j));
        pdij = kept ? pr * drop.keep_scale : 0.0f;
        dsij = f.scale * pr * ((kept ? f.dov * dpd * drop.keep_scale : 0.0f) - di);
        a.ds = std::max(a.ds, std::fabs(dsij));
      }
    }
    for (long long i = 0; i < sq; ++i) {
      for (long long e = 0; e < d; ++e) {
        float acc = 0.0f;
        for (long long j = 0; j < sk; ++j)
          acc += ds[i * sk + j] * load(p, b, MhaTensor::K, n, h, j, e);
        row[e] = f.dq * acc;
      }
      a.dq = std::max(
          a.dq, mha_cpu::store_rows(p, b, MhaTensor::DQ, n, h, i, 1, row.data(), d, f.scale_dq));
    }
    for (long long j = 0; j < sk; ++j) {
      for (long long e = 0; e < d; ++e) {
        float acc = 0.0f;
        for (long long i = 0; i < sq; ++i)
          acc += ds[i * sk + j] * load(p, b, MhaTensor::Q, n, h, i, e);
        row[e] = f.dk * acc;
      }
      a.dk = std::max(
          a.dk, mha_cpu::store_rows(p, b, MhaTensor::DK, n, h, j, 1, row.data(), d, f.scale_dk));
      for (long long e = 0; e < dv; ++e) {
        float acc = 0.0f;
        for (long long i = 0; i < sq; ++i)
          acc += pd[i * sk + j] * load(p, b, MhaTensor::DO, n, h, i, e);
        row[e] = f.dv * acc;
      }
      a.dv = std::max(
          a.dv, mha_cpu::store_rows(p, b, MhaTensor::DV, n, h, j, 1, row.data(), dv, f.scale_dv));
    }
    return a;
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_naive_backward<BackendKind::Cpu>() {
  return std::make_unique<cpu::MhaNaiveBackwardCpu>();
}

}  // namespace anydnn
