// The elementwise kernels of the CUDA RNN passes (the counterpart of
// backend/cpu/kernels/rnn_gates.hpp): one fused kernel per step for the gates forward and for
// their gradients backward, plus the small moves around them (state gathers, final states,
// skip-mode input). Dropout between layers is the dropout kernel (dropout.hpp). Each launches on
// `stream`; rows are this step's.
#pragma once

#include <cuda_runtime.h>
#include <miopen/miopen.h>

#include <cstdint>

namespace anydnn::cuda {

struct GateForwardArgs {
  float* gates;                  // rows x G*H: input projection in, activated gates out
  const float* hid;              // rows x G*H: hidden product (without bias)
  const float* bx = nullptr;     // G*H input-side bias, or null
  const float* bh = nullptr;     // G*H hidden-side bias, or null
  const float* hprev = nullptr;  // GRU: the state entering each row, rows hp_ld apart
  long long hp_ld = 0;
  const float* cprev = nullptr;  // LSTM: previous step's cell rows (rows < from_prev; ld H)
  long long from_prev = 0;
  const float* cx = nullptr;  // LSTM: initial cell rows (rows >= from_prev), or null (zeros)
  float* cell = nullptr;      // LSTM: this step's cell rows (ld H)
  float* hn = nullptr;        // GRU: this step's hidden-side n pre-activations (ld H)
  float* h;                   // this step's output rows (the direction's columns)
  long long ldh;
  long long rows, H;
};
// LSTM i, f, o, g: c = f*cprev + i*g, h = o*tanh(c); GRU z, r, n: n = tanh(x_n + r*hp_n),
// h = (1-z)*n + z*hprev; vanilla keeps the pre-activation p and h = tanh(p) or max(p, 0).
void rnn_gates_forward(miopenRNNMode_t mode, const GateForwardArgs& a, cudaStream_t stream);

struct GateBackwardArgs {
  const float* gates;            // rows x G*H activated gates (vanilla: pre-activations)
  const float* cell = nullptr;   // LSTM: this step's c (ld H)
  const float* cprev = nullptr;  // LSTM: c_prev rows (ld H)
  const float* hprev = nullptr;  // GRU: h_prev rows, hp_ld apart
  long long hp_ld = 0;
  const float* hn = nullptr;  // GRU: hidden-side n pre-activations (ld H)
  const float* h = nullptr;   // vanilla: this step's outputs, ldh apart
  long long ldh = 0;
  const float* dy;  // gradient arriving from above, ldy apart
  long long ldy;
  float* dhs;            // B x H: gradient arriving at h from the next step; out: direct part
  float* dcs = nullptr;  // LSTM: B x H cell gradient, in and out
  float* gx;             // rows x G*H pre-activation gradients
  float* dhn = nullptr;  // GRU: hidden-side n gradient (ld H)
  long long rows, H;
};
// The gradients of one step (backend/cpu/kernels/rnn_gates.inc's *_bwd, element for element).
void rnn_gates_backward(miopenRNNMode_t mode, const GateBackwardArgs& a, cudaStream_t stream);

// dst (rows x H) = src rows (ld apart) for rows < from_prev, then init rows (or zeros).
void rnn_gather_state(const float* src, long long ld, long long from_prev, const float* init,
                      float* dst, long long rows, long long H, cudaStream_t stream);
// dst (R x H): row r = out[prev[2r] * ldo] where prev[2r] >= 0, else init[prev[2r+1]] (or 0).
void rnn_gather_all_states(const int* prev, const float* out, long long ldo, const float* init,
                           float* dst, long long R, long long H, cudaStream_t stream);
// Final states: hy row b = h[row(b) * ldh], cy row b = cell[row(b) * H] (either may be null),
// row(b) = rows[b], or b itself when rows is null.
void rnn_final_states(const int* rows, const float* h, long long ldh, const float* cell, float* hy,
                      float* cy, long long B, long long H, cudaStream_t stream);
// Skip input mode: every gate of row r gets x's row r (R x G*H from R x H, x rows ldx apart).
void rnn_skip_input(const float* x, long long ldx, float* gates, long long R, long long G,
                    long long H, cudaStream_t stream);
// Its gradient: dx row r (+)= sum over gates of gx's row r.
void rnn_skip_input_grad(const float* gx, long long R, long long G, long long H, float* dx,
                         long long ldx, bool add, cudaStream_t stream);
}  // namespace anydnn::cuda
