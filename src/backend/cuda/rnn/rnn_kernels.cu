#include <memory>
#include <vector>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/rnn/rnn_gates.hpp"
#include "backend/cuda/rnn/rnn_gemm.hpp"
#include "backend/cuda/rnn/rnn_kernels.hpp"
#include "backend/cuda/row_moves.hpp"
#include "backend/cuda/tensor_ops.hpp"

namespace anydnn::cuda {

namespace {

using ll = long long;

// No packing: each piece is one cuBLAS GEMM against its rows (columns, transposed) of W.
class CudaStepGemm final : public RnnStepGemm {
 public:
  CudaStepGemm(CudaBackend& be, const float* w, size_t ld, size_t N, bool transposed)
      : be_(be), w_(w), ld_(ld), N_(N), transposed_(transposed) {}
  void multiply(const APiece* pieces, int count, size_t M, float* c, size_t ldc,
                bool accumulate) override {
    for (int i = 0; i < count; ++i) {
      const APiece& p = pieces[i];
      const float* b = transposed_ ? w_ + p.k_begin : w_ + p.k_begin * ld_;
      const float beta = accumulate || i > 0 ? 1.0f : 0.0f;
      rnn_gemm(be_.cublas(), false, transposed_, M, N_, p.k_end - p.k_begin, p.a, p.lda, b, ld_,
               beta, c, ldc, be_.cuda_stream());
    }
  }

 private:
  CudaBackend& be_;
  const float* w_;
  size_t ld_, N_;
  bool transposed_;
};

class CudaIndexTable final : public RnnIndexTable {
 public:
  CudaIndexTable(const std::vector<int>& host, cudaStream_t stream) : table_(host, stream) {}
  const int* data() const override { return table_.get(); }

 private:
  DeviceIntTable table_;
};

}  // namespace

void CudaRnnKernels::gemm(bool ta, bool tb, size_t m, size_t n, size_t k, const float* a,
                          size_t lda, const float* b, size_t ldb, float beta, float* c,
                          size_t ldc) {
  rnn_gemm(backend_.cublas(), ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc,
           backend_.cuda_stream());
}

std::unique_ptr<RnnStepGemm> CudaRnnKernels::step_gemm(const float* w, size_t ld, size_t, size_t N,
                                                       bool transposed, float*) {
  return std::make_unique<CudaStepGemm>(backend_, w, ld, N, transposed);
}

void CudaRnnKernels::gates_forward(miopenRNNMode_t mode, const RnnGateForward& a) {
  GateForwardArgs g;
  g.gates = a.gates;
  g.hid = a.hid;
  g.bx = a.bx;
  g.bh = a.bh;
  g.hprev = a.hprev;
  g.hp_ld = static_cast<ll>(a.hp_ld);
  g.cprev = a.cprev;
  g.from_prev = static_cast<ll>(a.from_prev);
  g.cx = a.cx;
  g.cell = a.cell;
  g.hn = a.hn;
  g.h = a.h;
  g.ldh = static_cast<ll>(a.ldh);
  g.rows = static_cast<ll>(a.rows);
  g.H = static_cast<ll>(a.H);
  rnn_gates_forward(mode, g, backend_.cuda_stream());
}

void CudaRnnKernels::gates_backward(miopenRNNMode_t mode, const RnnGateBackward& a) {
  GateBackwardArgs g;
  g.gates = a.gates;
  g.cell = a.cell;
  g.cprev = a.cprev;
  g.hprev = a.hprev;
  g.hp_ld = static_cast<ll>(a.hp_ld);
  g.hn = a.hn;
  g.h = a.h;
  g.ldh = static_cast<ll>(a.ldh);
  g.dy = a.dy;
  g.ldy = static_cast<ll>(a.ldy);
  g.dhs = a.dhs;
  g.dcs = a.dcs;
  g.gx = a.gx;
  g.dhn = a.dhn;
  g.rows = static_cast<ll>(a.rows);
  g.H = static_cast<ll>(a.H);
  rnn_gates_backward(mode, g, backend_.cuda_stream());
}

std::unique_ptr<RnnIndexTable> CudaRnnKernels::index_table(const std::vector<int>& host) {
  return std::make_unique<CudaIndexTable>(host, backend_.cuda_stream());
}

void CudaRnnKernels::gather_state(const float* src, size_t ld, size_t from_prev, const float* init,
                                  float* dst, size_t rows, size_t H) {
  rnn_gather_state(src, static_cast<ll>(ld), static_cast<ll>(from_prev), init, dst,
                   static_cast<ll>(rows), static_cast<ll>(H), backend_.cuda_stream());
}

void CudaRnnKernels::gather_all_states(const RnnIndexTable& prev, const float* out, size_t ldo,
                                       const float* init, float* dst, size_t R, size_t H) {
  rnn_gather_all_states(prev.data(), out, static_cast<ll>(ldo), init, dst, static_cast<ll>(R),
                        static_cast<ll>(H), backend_.cuda_stream());
}

void CudaRnnKernels::final_states(const RnnIndexTable* rows, const float* h, size_t ldh,
                                  const float* cell, float* hy, float* cy, size_t B, size_t H) {
  rnn_final_states(rows ? rows->data() : nullptr, h, static_cast<ll>(ldh), cell, hy, cy,
                   static_cast<ll>(B), static_cast<ll>(H), backend_.cuda_stream());
}

void CudaRnnKernels::skip_input(const float* x, size_t ldx, float* gates, size_t R, size_t G,
                                size_t H) {
  rnn_skip_input(x, static_cast<ll>(ldx), gates, static_cast<ll>(R), static_cast<ll>(G),
                 static_cast<ll>(H), backend_.cuda_stream());
}

void CudaRnnKernels::skip_input_grad(const float* gx, size_t R, size_t G, size_t H, float* dx,
                                     size_t ldx, bool add) {
  rnn_skip_input_grad(gx, static_cast<ll>(R), static_cast<ll>(G), static_cast<ll>(H), dx,
                      static_cast<ll>(ldx), add, backend_.cuda_stream());
}

void CudaRnnKernels::column_sums(const float* a, size_t rows, size_t cols, size_t lda, float* out) {
  cuda::column_sums(a, rows, cols, lda, out, backend_.cuda_stream());
}

void CudaRnnKernels::copy(float* dst, const float* src, size_t n) {
  if (n == 0) return;
  check_cuda(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice,
                             backend_.cuda_stream()),
             "cudaMemcpyAsync (RNN)");
}

void CudaRnnKernels::zero(float* dst, size_t n) {
  if (n == 0) return;
  check_cuda(cudaMemsetAsync(dst, 0, n * sizeof(float), backend_.cuda_stream()),
             "cudaMemsetAsync (RNN)");
}

void CudaRnnKernels::move_rows(const std::vector<RowMoves>& groups) {
  cuda::move_rows(groups, backend_.cuda_stream());
}

void CudaRnnKernels::fill(void* dst, size_t n, float value, bool half) {
  cuda::fill(dst, n, value, half, backend_.cuda_stream());
}

void CudaRnnKernels::half_to_float(const uint16_t* src, size_t n, float* dst) {
  cuda::half_to_float(src, n, dst, backend_.cuda_stream());
}

void CudaRnnKernels::float_to_half(const float* src, size_t n, uint16_t* dst) {
  cuda::float_to_half(src, n, dst, backend_.cuda_stream());
}

}  // namespace anydnn::cuda
