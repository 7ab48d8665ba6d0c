// The CPU's RnnKernels (rnn/rnn_kernels.hpp): BLAS for the large GEMMs, packed-panel step
// GEMMs (rnn_gemm.hpp), the per-ISA fused gate kernels (kernels/rnn_gates.hpp) over the step's
// rows, and the state moves as OpenMP loops.
#pragma once

#include "core/cpu_isa.hpp"
#include "rnn/rnn_kernels.hpp"

namespace anydnn::cpu {

class CpuRnnKernels final : public RnnKernels {
 public:
  CpuRnnKernels(CpuIsa isa, int threads) : isa_(isa), threads_(threads) {}

  void gemm(bool ta, bool tb, size_t m, size_t n, size_t k, const float* a, size_t lda,
            const float* b, size_t ldb, float beta, float* c, size_t ldc) override;
  std::unique_ptr<RnnStepGemm> step_gemm(const float* w, size_t ld, size_t K, size_t N,
                                         bool transposed, float* storage) override;
  void gates_forward(miopenRNNMode_t mode, const RnnGateForward& a) override;
  void gates_backward(miopenRNNMode_t mode, const RnnGateBackward& a) override;
  std::unique_ptr<RnnIndexTable> index_table(const std::vector<int>& host) override;
  void gather_state(const float* src, size_t ld, size_t from_prev, const float* init, float* dst,
                    size_t rows, size_t H) override;
  void gather_all_states(const RnnIndexTable& prev, const float* out, size_t ldo, const float* init,
                         float* dst, size_t R, size_t H) override;
  void final_states(const RnnIndexTable* rows, const float* h, size_t ldh, const float* cell,
                    float* hy, float* cy, size_t B, size_t H) override;
  void skip_input(const float* x, size_t ldx, float* gates, size_t R, size_t G, size_t H) override;
  void skip_input_grad(const float* gx, size_t R, size_t G, size_t H, float* dx, size_t ldx,
                       bool add) override;
  void column_sums(const float* a, size_t rows, size_t cols, size_t lda, float* out) override;
  void copy(float* dst, const float* src, size_t n) override;
  void zero(float* dst, size_t n) override;
  void move_rows(const std::vector<RowMoves>& groups) override;
  void fill(void* dst, size_t n, float value, bool half) override;
  void half_to_float(const uint16_t* src, size_t n, float* dst) override;
  void float_to_half(const float* src, size_t n, uint16_t* dst) override;

 private:
  CpuIsa isa_;
  int threads_;
};

}  // namespace anydnn::cpu
