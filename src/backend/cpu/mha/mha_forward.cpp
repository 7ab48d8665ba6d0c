// MhaForward (CPU): per task, a block of up to kRows query rows of one (n, h):
//   T = qk * Q_block K^T (OpenBLAS sgemm), the row softmax in place (bias, causal mask, max,
//   exp, 1 / sum, dropout; M and ZInv saved), O' = o_pre * S V (sgemm), O = O' * scaleO.
// Under the causal mask a block only multiplies the key columns its last row sees. Tasks are
// spread over the threads (OpenBLAS single-threaded inside them); each thread has its slot of
// the workspace (the T block, the O' block, fp32 copies of operands that are not fp32 with
// contiguous rows). The row loops run compiled for the CPU's instruction set (with_isa).
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

constexpr long long kRows = 64;

struct Slot {
  size_t t, o, bias, q, k, v;  // floats of each piece (0: not needed)
  size_t total() const {
    using mha_cpu::round16;
    return round16(t) + round16(o) + round16(bias) + round16(q) + round16(k) + round16(v);
  }
};

Slot slot_of(const MhaProblem& p) {
  const long long rows = std::min(kRows, p.seq_q());
  Slot s{};
  s.t = static_cast<size_t>(rows * p.seq_k());
  s.o = static_cast<size_t>(rows * p.value_dim());
  s.bias = p.has_bias() ? static_cast<size_t>(p.seq_k()) : 0;
  s.q = mha_cpu::direct(p, MhaTensor::Q) ? 0 : static_cast<size_t>(rows * p.head_dim());
  s.k = mha_cpu::direct(p, MhaTensor::K) ? 0 : static_cast<size_t>(p.seq_k() * p.head_dim());
  s.v = mha_cpu::direct(p, MhaTensor::V) ? 0 : static_cast<size_t>(p.seq_k() * p.value_dim());
  return s;
}

long long task_count(const MhaProblem& p) {
  return p.batch_heads() * ((p.seq_q() + kRows - 1) / kRows);
}

int slots_of(const ExecutionContext& ctx, const MhaProblem& p) {
  return static_cast<int>(
      std::max(1LL, std::min<long long>(ctx.config.num_threads, task_count(p))));
}

struct Amax {
  float s = 0.0f, o = 0.0f;
};

// The softmax of one row of `cols` logits (already scaled) in place: S values, M, ZInv.
// `vis` columns are visible (the causal mask hides the rest). Returns max P.
float softmax_row(float* row, const float* bias, long long cols, long long vis,
                  const mha::Dropout& drop, uint64_t first, float s_factor, float& m_out,
                  float& zinv_out) {
  if (bias != nullptr)
    for (long long j = 0; j < vis; ++j)
      row[j] += bias[j];
  float m = -INFINITY;
  for (long long j = 0; j < vis; ++j)
    m = std::max(m, row[j]);
  float sum = 0.0f;
  for (long long j = 0; j < vis; ++j) {
    row[j] = vmath::exp(row[j] - m);
    sum += row[j];
  }
  const float zinv = 1.0f / sum;
  float amax = 0.0f;
  for (long long j = 0; j < vis; ++j) {
    row[j] *= zinv;
    amax = std::max(amax, row[j]);
  }
  if (drop.threshold == 0) {
    for (long long j = 0; j < vis; ++j)
      row[j] *= s_factor;
  } else {
    for (long long j = 0; j < vis; ++j)
      row[j] = mha::keep(drop, first + static_cast<uint64_t>(j)) ? row[j] * s_factor : 0.0f;
  }
  std::fill(row + vis, row + cols, 0.0f);
  m_out = m;
  zinv_out = zinv;
  return amax;
}

class MhaForwardCpu final : public MhaGemmSpec {
 public:
  MhaForwardCpu() : MhaGemmSpec(MhaDirection::Forward, /*strided_operands=*/true) {}

  size_t workspace_size(const ExecutionContext& ctx, const MhaProblem& p) const override {
    return static_cast<size_t>(slots_of(ctx, p)) * slot_of(p).total() * sizeof(float) + 64;
  }

  void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
           void* workspace) const override {
    const mha::Scalars sc = mha::load_scalars(b.scalars());
    const mha::Dropout drop = mha::make_dropout(sc);
    const mha::ForwardFactors f = mha::forward_factors(p.scale(), sc, drop);
    const Slot slot = slot_of(p);
    const int slots = slots_of(ctx, p);
    const long long blocks = (p.seq_q() + kRows - 1) / kRows, tasks = task_count(p);
    const CpuIsa isa = ctx.config.cpu_isa;
    float amax_s = 0.0f, amax_o = 0.0f;
#pragma omp parallel num_threads(slots) if (slots > 1) reduction(max : amax_s, amax_o)
    {
      mha_cpu::Carver carve(static_cast<char*>(workspace) +
                            static_cast<size_t>(omp_get_thread_num()) * slot.total() *
                                sizeof(float));
      float* t_buf = carve.take(slot.t);
      float* o_buf = carve.take(slot.o);
      float* bias_buf = carve.take(slot.bias);
      float* q_buf = carve.take(slot.q);
      float* k_buf = carve.take(slot.k);
      float* v_buf = carve.take(slot.v);
#pragma omp for schedule(dynamic)
      for (long long task = 0; task < tasks; ++task) {
        const long long nh = task / blocks, n = nh / p.heads(), h = nh % p.heads();
        const long long i0 = (task % blocks) * kRows, rows = std::min(kRows, p.seq_q() - i0);
        const Amax a = run_block(p, b, f, drop, isa, n, h, i0, rows, t_buf, o_buf, bias_buf, q_buf,
                                 k_buf, v_buf);
        amax_s = std::max(amax_s, a.s);
        amax_o = std::max(amax_o, a.o);
      }
    }
    mha_cpu::write_scalar(b, MhaTensor::AmaxS, amax_s);
    mha_cpu::write_scalar(b, MhaTensor::AmaxO, amax_o);
  }

 private:
  static Amax run_block(const MhaProblem& p, const MhaBuffers& b, const mha::ForwardFactors& f,
                        const mha::Dropout& drop, CpuIsa isa, long long n, long long h,
                        long long i0, long long rows, float* t_buf, float* o_buf, float* bias_buf,
                        float* q_buf, float* k_buf, float* v_buf) {
    const bool causal = b.causal();
    const long long sk = p.seq_k();
    // Causal: the block's last row sees keys [0, i0 + rows).
    const long long cols = causal ? std::min(sk, i0 + rows) : sk;
    const Operand q = mha_cpu::operand(p, b, MhaTensor::Q, n, h, i0, rows, q_buf);
    const Operand k = mha_cpu::operand(p, b, MhaTensor::K, n, h, 0, cols, k_buf);
    const Operand v = mha_cpu::operand(p, b, MhaTensor::V, n, h, 0, cols, v_buf);
    mha_cpu::gemm(false, true, rows, cols, p.head_dim(), f.qk, q, k, t_buf, cols);
    Amax a;
    float* m_out = b.as<float>(MhaTensor::M);
    float* z_out = b.as<float>(MhaTensor::ZInv);
    const MhaStrides ms = p.strides(MhaTensor::M), zs = p.strides(MhaTensor::ZInv);
    for (long long r = 0; r < rows; ++r) {
      const long long i = i0 + r;
      if (p.has_bias()) mha_cpu::load_row(p, b, MhaTensor::Bias, n, h, i, cols, bias_buf);
      const long long vis = causal ? std::min(cols, i + 1) : cols;
      const uint64_t first = static_cast<uint64_t>(((n * p.heads() + h) * p.seq_q() + i) * sk);
      float m = 0.0f, zinv = 0.0f;
      with_isa(isa, [&] {
        a.s = std::max(a.s, softmax_row(t_buf + r * cols, p.has_bias() ? bias_buf : nullptr, cols,
                                        vis, drop, first, f.s, m, zinv));
      });
      if (m_out != nullptr) m_out[mha_cpu::offset(ms, n, h, i, 0)] = m;
      if (z_out != nullptr) z_out[mha_cpu::offset(zs, n, h, i, 0)] = zinv;
    }
    mha_cpu::gemm(false, false, rows, p.value_dim(), cols, f.o_pre, Operand{t_buf, cols}, v, o_buf,
                  p.value_dim());
    a.o = mha_cpu::store_rows(p, b, MhaTensor::O, n, h, i0, rows, o_buf, p.value_dim(), f.scale_o);
    return a;
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<MhaSolver> make_mha_forward<BackendKind::Cpu>() {
  return std::make_unique<cpu::MhaForwardCpu>();
}

}  // namespace anydnn
