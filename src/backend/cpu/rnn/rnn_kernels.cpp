#include "backend/cpu/rnn/rnn_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend/cpu/kernels/rnn_gates.hpp"
#include "backend/cpu/rnn/rnn_gemm.hpp"
#include "core/float_types.hpp"

namespace anydnn::cpu {

namespace {

class CpuStepGemm final : public RnnStepGemm {
 public:
  CpuStepGemm(CpuIsa isa, const float* w, size_t ld, size_t K, size_t N, bool transposed,
              float* storage, int threads)
      : packed_(isa, w, static_cast<long>(ld), static_cast<int>(K), static_cast<int>(N), transposed,
                storage),
        threads_(threads) {}
  void multiply(const APiece* pieces, int count, size_t M, float* c, size_t ldc,
                bool accumulate) override {
    // The passes split A into at most two pieces (GRU's backward).
    PackedGemmB::APiece p[kMaxPieces];
    count = std::min(count, kMaxPieces);
    for (int i = 0; i < count; ++i)
      p[i] = {pieces[i].a, static_cast<long>(pieces[i].lda), static_cast<int>(pieces[i].k_begin),
              static_cast<int>(pieces[i].k_end)};
    packed_.multiply(p, count, static_cast<int>(M), c, static_cast<long>(ldc), accumulate,
                     threads_);
  }

 private:
  static constexpr int kMaxPieces = 4;
  PackedGemmB packed_;
  int threads_;
};

class HostIndexTable final : public RnnIndexTable {
 public:
  explicit HostIndexTable(std::vector<int> v) : v_(std::move(v)) {}
  const int* data() const override { return v_.data(); }

 private:
  std::vector<int> v_;
};

// f(first, count) over n values in chunks, on `threads` (fp16 staging converts whole tensors).
template <class F>
void in_chunks(size_t n, int threads, F&& f) {
  constexpr size_t kChunk = 16384;
  const long chunks = static_cast<long>((n + kChunk - 1) / kChunk);
#pragma omp parallel for num_threads(threads) if (chunks > 4)
  for (long c = 0; c < chunks; ++c) {
    const size_t i = static_cast<size_t>(c) * kChunk;
    f(i, std::min(kChunk, n - i));
  }
}

}  // namespace

void CpuRnnKernels::gemm(bool ta, bool tb, size_t m, size_t n, size_t k, const float* a, size_t lda,
                         const float* b, size_t ldb, float beta, float* c, size_t ldc) {
  blas_gemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

std::unique_ptr<RnnStepGemm> CpuRnnKernels::step_gemm(const float* w, size_t ld, size_t K, size_t N,
                                                      bool transposed, float* storage) {
  return std::make_unique<CpuStepGemm>(isa_, w, ld, K, N, transposed, storage, threads_);
}

void CpuRnnKernels::gates_forward(miopenRNNMode_t mode, const RnnGateForward& a) {
  const RnnGateOps& ops = rnn_gate_ops(isa_);
  const size_t H = a.H, GH = (mode == miopenLSTM ? 4 : mode == miopenGRU ? 3 : 1) * H;
  // LSTM rows with neither a previous step nor cx start from a zero cell.
  const bool zeros = mode == miopenLSTM && a.from_prev < a.rows && !a.cx;
  const std::vector<float> zero_state(zeros ? H : 0, 0.0f);
  const long n = static_cast<long>(a.rows);
#pragma omp parallel for num_threads(threads_) if (a.rows * GH > 16384)
  for (long bi = 0; bi < n; ++bi) {
    float* g = a.gates + bi * GH;
    float* hp = a.hid + bi * GH;
    float* h = a.h + bi * a.ldh;
    if (a.bx)
      for (size_t j = 0; j < GH; ++j)
        g[j] += a.bx[j];
    if (a.bh)
      for (size_t j = 0; j < GH; ++j)
        hp[j] += a.bh[j];
    if (mode == miopenLSTM) {
      const float* cprev = zero_state.data();
      if (static_cast<size_t>(bi) < a.from_prev)
        cprev = a.cprev + bi * H;
      else if (a.cx)
        cprev = a.cx + bi * H;
      ops.lstm(g, hp, cprev, a.cell + bi * H, h, static_cast<long>(H));
    } else if (mode == miopenGRU) {
      // n = tanh(W_n x + b_xn + r * (U_n h + b_hn)): the reset gate after the hidden product
      // and its bias.
      ops.gru(g, hp, a.hprev + bi * a.hp_ld, a.hn + bi * H, h, static_cast<long>(H));
    } else {
      ops.vanilla(g, hp, h, static_cast<long>(H), mode == miopenRNNRELU);
    }
  }
}

void CpuRnnKernels::gates_backward(miopenRNNMode_t mode, const RnnGateBackward& a) {
  const RnnGateOps& ops = rnn_gate_ops(isa_);
  const size_t H = a.H, GH = (mode == miopenLSTM ? 4 : mode == miopenGRU ? 3 : 1) * H;
  const long n = static_cast<long>(a.rows);
#pragma omp parallel for num_threads(threads_) if (a.rows * GH > 16384)
  for (long bi = 0; bi < n; ++bi) {
    const float* g = a.gates + bi * GH;
    float* gx = a.gx + bi * GH;
    float* dhs = a.dhs + bi * H;
    const float* dyr = a.dy + bi * a.ldy;
    if (mode == miopenLSTM)
      ops.lstm_bwd(g, a.cell + bi * H, a.cprev + bi * H, dyr, dhs, a.dcs + bi * H, gx,
                   static_cast<long>(H));
    else if (mode == miopenGRU)
      ops.gru_bwd(g, a.hprev + bi * a.hp_ld, a.hn + bi * H, dyr, dhs, gx, a.dhn + bi * H,
                  static_cast<long>(H));
    else
      ops.vanilla_bwd(g, a.h + bi * a.ldh, dyr, dhs, gx, static_cast<long>(H),
                      mode == miopenRNNRELU);
  }
}

std::unique_ptr<RnnIndexTable> CpuRnnKernels::index_table(const std::vector<int>& host) {
  return std::make_unique<HostIndexTable>(host);
}

void CpuRnnKernels::gather_state(const float* src, size_t ld, size_t from_prev, const float* init,
                                 float* dst, size_t rows, size_t H) {
  for (size_t b = 0; b < rows; ++b) {
    const float* from = b < from_prev ? src + b * ld : (init ? init + b * H : nullptr);
    if (from)
      std::memcpy(dst + b * H, from, H * sizeof(float));
    else
      std::memset(dst + b * H, 0, H * sizeof(float));
  }
}

void CpuRnnKernels::gather_all_states(const RnnIndexTable& prev, const float* out, size_t ldo,
                                      const float* init, float* dst, size_t R, size_t H) {
  const int* p = prev.data();
  const long n = static_cast<long>(R);
#pragma omp parallel for num_threads(threads_) if (R * H > 65536)
  for (long r = 0; r < n; ++r) {
    const float* from = p[2 * r] >= 0 ? out + static_cast<size_t>(p[2 * r]) * ldo
                        : init        ? init + static_cast<size_t>(p[2 * r + 1]) * H
                                      : nullptr;
    if (from)
      std::memcpy(dst + r * H, from, H * sizeof(float));
    else
      std::memset(dst + r * H, 0, H * sizeof(float));
  }
}

void CpuRnnKernels::final_states(const RnnIndexTable* rows, const float* h, size_t ldh,
                                 const float* cell, float* hy, float* cy, size_t B, size_t H) {
  for (size_t b = 0; b < B; ++b) {
    const size_t row = rows ? static_cast<size_t>(rows->data()[b]) : b;
    if (hy) std::memcpy(hy + b * H, h + row * ldh, H * sizeof(float));
    if (cy) std::memcpy(cy + b * H, cell + row * H, H * sizeof(float));
  }
}

void CpuRnnKernels::skip_input(const float* x, size_t ldx, float* gates, size_t R, size_t G,
                               size_t H) {
#pragma omp parallel for num_threads(threads_)
  for (long r = 0; r < static_cast<long>(R); ++r)
    for (size_t g = 0; g < G; ++g)
      std::memcpy(gates + r * G * H + g * H, x + r * ldx, H * sizeof(float));
}

void CpuRnnKernels::skip_input_grad(const float* gx, size_t R, size_t G, size_t H, float* dx,
                                    size_t ldx, bool add) {
#pragma omp parallel for num_threads(threads_)
  for (long r = 0; r < static_cast<long>(R); ++r) {
    float* dxr = dx + r * ldx;
    const float* g = gx + r * G * H;
    for (size_t j = 0; j < H; ++j) {
      float sum = add ? dxr[j] : 0.0f;
      for (size_t gi = 0; gi < G; ++gi)
        sum += g[gi * H + j];
      dxr[j] = sum;
    }
  }
}

void CpuRnnKernels::column_sums(const float* a, size_t rows, size_t cols, size_t lda, float* out) {
  constexpr long kBlock = 256;
  const long blocks = static_cast<long>((cols + kBlock - 1) / kBlock);
#pragma omp parallel for num_threads(threads_) if (rows * cols > 65536)
  for (long cb = 0; cb < blocks; ++cb) {
    const size_t j0 = cb * kBlock, j1 = std::min(cols, j0 + kBlock);
    float* o = out + j0;
    std::fill(o, o + (j1 - j0), 0.0f);
    for (size_t r = 0; r < rows; ++r) {
      const float* row = a + r * lda + j0;
      for (size_t j = 0; j < j1 - j0; ++j)
        o[j] += row[j];
    }
  }
}

void CpuRnnKernels::copy(float* dst, const float* src, size_t n) {
  if (n) std::memcpy(dst, src, n * sizeof(float));
}

void CpuRnnKernels::zero(float* dst, size_t n) {
  if (n) std::memset(dst, 0, n * sizeof(float));
}

void CpuRnnKernels::move_rows(const std::vector<RowMoves>& groups) {
  for (const RowMoves& g : groups)
    for (const auto& [from, to] : g.rows) {
      if (g.src_half == g.dst_half) {
        const size_t es = g.src_half ? 2 : 4;
        std::memcpy(static_cast<char*>(g.dst) + to * es,
                    static_cast<const char*>(g.src) + from * es, g.width * es);
      } else if (g.src_half) {
        anydnn::half_to_float(static_cast<const uint16_t*>(g.src) + from, g.width,
                              static_cast<float*>(g.dst) + to);
      } else {
        anydnn::float_to_half(static_cast<const float*>(g.src) + from, g.width,
                              static_cast<uint16_t*>(g.dst) + to);
      }
    }
}

void CpuRnnKernels::fill(void* dst, size_t n, float value, bool half) {
  if (half)
    std::fill_n(static_cast<uint16_t*>(dst), n, anydnn::float_to_half(value));
  else
    std::fill_n(static_cast<float*>(dst), n, value);
}

void CpuRnnKernels::half_to_float(const uint16_t* src, size_t n, float* dst) {
  in_chunks(n, threads_, [&](size_t i, size_t m) { anydnn::half_to_float(src + i, m, dst + i); });
}

void CpuRnnKernels::float_to_half(const float* src, size_t n, uint16_t* dst) {
  in_chunks(n, threads_, [&](size_t i, size_t m) { anydnn::float_to_half(src + i, m, dst + i); });
}

}  // namespace anydnn::cpu
