// MhaNaiveForward (CPU): the fallback. One query row at a time, each logit a dot product read
// element by element through the tensors' strides (any layout, any type), fp32 arithmetic;
// rows spread over the threads. Needs no workspace (a row of logits per thread on the heap).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/mha/mha_cpu.hpp"
#include "mha/mha_registry.hpp"
#include "mha/mha_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

using mha_cpu::load;

class MhaNaiveForwardCpu final : public MhaNaiveSpec {
 public:
  MhaNaiveForwardCpu() : MhaNaiveSpec(MhaDirection::Forward) {}

  size_t workspace_size(const ExecutionContext&, const MhaProblem&) const override { return 0; }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void*) const override {
    const mha::Scalars sc = mha::load_scalars(b.scalars());
    const mha::Dropout drop = mha::make_dropout(sc);
    const mha::ForwardFactors f = mha::forward_factors(p.scale(), sc, drop);
    const long long rows = p.batch_heads() * p.seq_q(), sk = p.seq_k();
    const bool causal = b.causal();
    const int threads = static_cast<int>(std::min<long long>(ctx.config.num_threads, rows));
    float amax_s = 0.0f, amax_o = 0.0f;
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(max : amax_s, amax_o)
    {
      std::vector<float> s(static_cast<size_t>(sk)), o(static_cast<size_t>(p.value_dim()));
#pragma omp for schedule(static)
      for (long long row = 0; row < rows; ++row) {
        const long long nh = row / p.seq_q(), i = row % p.seq_q();
        const long long n = nh / p.heads(), h = nh % p.heads();
        float m = -INFINITY;
        for (long long j = 0; j < sk; ++j) {
          if (!mha::visible(causal, i, j)) continue;
          float dot = 0.0f;
          for (long long e = 0; e < p.head_dim(); ++e)
            dot += load(p, b, MhaTensor::Q, n, h, i, e) * load(p, b, MhaTensor::K, n, h, j, e);
          s[j] = f.qk * dot + (p.has_bias() ? load(p, b, MhaTensor::Bias, n, h, i, j) : 0.0f);
          m = std::max(m, s[j]);
        }
        float sum = 0.0f;
        for (long long j = 0; j < sk; ++j)
          if (mha::visible(causal, i, j)) sum += std::exp(s[j] - m);
        const float zinv = 1.0f / sum;
        for (long long j = 0; j < sk; ++j) {
          const float pr = mha::visible(causal, i, j) ? std::exp(s[j] - m) * zinv : 0.0f;
          amax_s = std::max(amax_s, pr);
          s[j] = mha::keep(drop, static_cast<uint64_t>(row * sk + j)) ? pr * f.s : 0.0f;
        }
        if (float* mo = b.as<float>(MhaTensor::M))
          mo[mha_cpu::offset(p.strides(MhaTensor::M), n, h, i, 0)] = m;
        if (float* zo = b.as<float>(MhaTensor::ZInv))
          zo[mha_cpu::offset(p.strides(MhaTensor::ZInv), n, h, i, 0)] = zinv;
        for (long long e = 0; e < p.value_dim(); ++e) {
          float acc = 0.0f;
          for (long long j = 0; j < sk; ++j)
            acc += s[j] * load(p, b, MhaTensor::V, n, h, j, e);
          o[e] = f.o_pre * acc;
        }
        amax_o = std::max(amax_o, mha_cpu::store_rows(p, b, MhaTensor::O, n, h, i, 1, o.data(),
                                                      p.value_dim(), f.scale_o));
      }
    }
    mha_cpu::write_scalar(b, MhaTensor::AmaxS, amax_s);
    mha_cpu::write_scalar(b, MhaTensor::AmaxO, amax_o);
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_naive_forward<BackendKind::Cpu>() {
  return std::make_unique<cpu::MhaNaiveForwardCpu>();
}

}  // namespace anydnn
