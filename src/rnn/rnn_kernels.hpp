// What the RNN passes (rnn_passes.hpp, written once for every backend) need from a backend:
// kernel calls only, no loops over layers, directions or steps. Every pointer is the backend's
// memory (host memory on the CPU); every call is ordered on the handle's stream. fp32 rows are
// row-major with the given leading dimension (in floats). A backend hands its implementation
// out through Backend::kernels<RnnKernels>() (backend/cpu/rnn/rnn_kernels.*, backend/cuda/rnn/...).
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace anydnn {

// The inputs and outputs of one step's gate kernel, forward. Rows are this step's (the first
// r0 of the step's packed rows already applied).
struct RnnGateForward {
  float* gates;                  // rows x G*H: input projection in, activated gates out
  float* hid;                    // rows x G*H: hidden product (without bias); may be clobbered
  const float* bx = nullptr;     // G*H input-side bias, or null
  const float* bh = nullptr;     // G*H hidden-side bias, or null
  const float* hprev = nullptr;  // GRU: the state entering each row, rows hp_ld apart
  size_t hp_ld = 0;
  const float* cprev = nullptr;  // LSTM: previous step's cell rows (rows < from_prev; ld H)
  size_t from_prev = 0;
  const float* cx = nullptr;  // LSTM: initial cell rows (rows >= from_prev), or null (zeros)
  float* cell = nullptr;      // LSTM: this step's cell rows (ld H)
  float* hn = nullptr;        // GRU: this step's hidden-side n pre-activations (ld H)
  float* h;                   // this step's output rows (the direction's columns), ldh apart
  size_t ldh;
  size_t rows, H;
};

// One step's gate gradients.
struct RnnGateBackward {
  const float* gates;            // rows x G*H activated gates (vanilla: pre-activations)
  const float* cell = nullptr;   // LSTM: this step's c (ld H)
  const float* cprev = nullptr;  // LSTM: c_prev rows (ld H)
  const float* hprev = nullptr;  // GRU: h_prev rows, hp_ld apart
  size_t hp_ld = 0;
  const float* hn = nullptr;  // GRU: hidden-side n pre-activations (ld H)
  const float* h = nullptr;   // vanilla: this step's outputs, ldh apart
  size_t ldh = 0;
  const float* dy;  // gradient arriving from above, ldy apart
  size_t ldy;
  float* dhs;            // rows x H: gradient arriving at h from the next step; out: direct part
  float* dcs = nullptr;  // LSTM: rows x H cell gradient, in and out
  float* gx;             // rows x G*H pre-activation gradients
  float* dhn = nullptr;  // GRU: hidden-side n gradient (ld H)
  size_t rows, H;
};

// The per-step GEMM against one layer and direction's hidden weights, which every step of a
// pass reuses (the CPU packs them once into register-tile panels; CUDA calls cuBLAS).
class RnnStepGemm {
 public:
  virtual ~RnnStepGemm() = default;
  // A split by columns into pieces from different arrays: piece i supplies A's columns
  // [k_begin, k_end) as A(row, k) = a[row * lda + k - k_begin] (GRU's backward takes its n-gate
  // columns from their own array).
  struct APiece {
    const float* a;
    size_t lda;
    size_t k_begin, k_end;
  };
  // C (M x N, ldc) = A * B, or C += A * B when `accumulate`.
  virtual void multiply(const APiece* pieces, int count, size_t M, float* c, size_t ldc,
                        bool accumulate) = 0;
  void multiply(const float* a, size_t lda, size_t M, size_t K, float* c, size_t ldc,
                bool accumulate) {
    const APiece whole{a, lda, 0, K};
    multiply(&whole, 1, M, c, ldc, accumulate);
  }
};

// One group of row moves for RnnKernels::move_rows: `width` values per row, row i from element
// rows[i].first of src to element rows[i].second of dst. Each side holds fp32 or IEEE half (raw
// bits) values, converted on the way; both sides are the backend's memory.
struct RowMoves {
  const void* src = nullptr;
  bool src_half = false;
  void* dst = nullptr;
  bool dst_half = false;
  size_t width = 0;
  std::vector<std::pair<size_t, size_t>> rows;
};

// A small int table in the backend's memory, uploaded once per pass.
class RnnIndexTable {
 public:
  virtual ~RnnIndexTable() = default;
  virtual const int* data() const = 0;
};

class RnnKernels {
 public:
  virtual ~RnnKernels() = default;

  // C (m x n, ldc) = op(A) * op(B) + beta * C, op = transpose when ta / tb, in full fp32. k = 0
  // leaves beta * C (C = 0 for beta = 0).
  virtual void gemm(bool ta, bool tb, size_t m, size_t n, size_t k, const float* a, size_t lda,
                    const float* b, size_t ldb, float beta, float* c, size_t ldc) = 0;
  // The step GEMM's B: B(k, j) = w[j * ld + k] when `transposed` (W^T for a row-major N x K
  // W), else w[k * ld + j]. `storage`: workspace room for a packed copy
  // (RnnShape::packed_offset), which the object may use until it is destroyed.
  virtual std::unique_ptr<RnnStepGemm> step_gemm(const float* w, size_t ld, size_t K, size_t N,
                                                 bool transposed, float* storage) = 0;

  // LSTM i, f, o, g: c = f*cprev + i*g, h = o*tanh(c); GRU z, r, n: n = tanh(x_n + r*hp_n),
  // h = (1-z)*n + z*hprev; vanilla keeps the pre-activation p and h = tanh(p) or max(p, 0).
  virtual void gates_forward(miopenRNNMode_t mode, const RnnGateForward& a) = 0;
  virtual void gates_backward(miopenRNNMode_t mode, const RnnGateBackward& a) = 0;

  virtual std::unique_ptr<RnnIndexTable> index_table(const std::vector<int>& host) = 0;
  // dst (rows x H) = src rows (ld apart) for rows < from_prev, then init rows (or zeros).
  virtual void gather_state(const float* src, size_t ld, size_t from_prev, const float* init,
                            float* dst, size_t rows, size_t H) = 0;
  // dst (R x H): row r = out[prev[2r] * ldo] where prev[2r] >= 0, else init[prev[2r+1] * H]
  // (or 0 without init).
  virtual void gather_all_states(const RnnIndexTable& prev, const float* out, size_t ldo,
                                 const float* init, float* dst, size_t R, size_t H) = 0;
  // Final states: hy row b = h[row(b) * ldh], cy row b = cell[row(b) * H] (either may be null),
  // row(b) = rows[b], or b itself when rows is null.
  virtual void final_states(const RnnIndexTable* rows, const float* h, size_t ldh,
                            const float* cell, float* hy, float* cy, size_t B, size_t H) = 0;
  // Skip input mode: every gate of row r gets x's row r (R x G*H from R x H, ldx apart).
  virtual void skip_input(const float* x, size_t ldx, float* gates, size_t R, size_t G,
                          size_t H) = 0;
  // Its gradient: dx row r (+)= sum over gates of gx's row r.
  virtual void skip_input_grad(const float* gx, size_t R, size_t G, size_t H, float* dx, size_t ldx,
                               bool add) = 0;
  // out[j] = sum over rows of a[r * lda + j], in a fixed order (reproducible).
  virtual void column_sums(const float* a, size_t rows, size_t cols, size_t lda, float* out) = 0;
  // n floats.
  virtual void copy(float* dst, const float* src, size_t n) = 0;
  virtual void zero(float* dst, size_t n) = 0;

  // The front-ends' moves around the passes. Every group's rows (the sequence API's packing,
  // padded I/O): CUDA uploads one offset table for all groups and runs one kernel per group,
  // instead of a copy per row. Groups run in order.
  virtual void move_rows(const std::vector<RowMoves>& groups) = 0;
  // n values of `value` (fp32, or IEEE half when `half`) from dst on.
  virtual void fill(void* dst, size_t n, float value, bool half) = 0;
  // n values between IEEE half (raw bits) and float (fp16 calls' staging).
  virtual void half_to_float(const uint16_t* src, size_t n, float* dst) = 0;
  virtual void float_to_half(const float* src, size_t n, uint16_t* dst) = 0;
};

}  // namespace anydnn
