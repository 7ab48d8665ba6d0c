// The fused elementwise part of one RNN step, per batch row and per instruction set: gate
// activations from the input projection g (in place: it keeps the activated gates for the
// backward pass) plus the hidden projection hp, then the new cell / hidden state.
#pragma once

#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

struct RnnGateOps {
  // LSTM i, f, o, g: c = f*cprev + i*g, h = o*tanh(c).
  void (*lstm)(float* g, const float* hp, const float* cprev, float* c, float* h, long H) = nullptr;
  // GRU z, r, n: n = tanh(g_n + r*hp_n), h = (1-z)*n + z*hprev; hn keeps hp_n.
  void (*gru)(float* g, const float* hp, const float* hprev, float* hn, float* h, long H) = nullptr;
  // Vanilla: g keeps the pre-activation p = g + hp; h = tanh(p) or max(p, 0).
  void (*vanilla)(float* g, const float* hp, float* h, long H, bool relu) = nullptr;

  // Backward of one step and row: dh = dy + dhs (the gradient arriving at h), gate gradients
  // into gx; dhs becomes the direct part of the gradient to h_prev (GRU: dh*z, else 0) and, for
  // LSTM, dcs the gradient to c_prev. GRU also writes the hidden-side n gradient to dhn.
  void (*lstm_bwd)(const float* g, const float* c, const float* cprev, const float* dy, float* dhs,
                   float* dcs, float* gx, long H) = nullptr;
  void (*gru_bwd)(const float* g, const float* hprev, const float* hn, const float* dy, float* dhs,
                  float* gx, float* dhn, long H) = nullptr;
  void (*vanilla_bwd)(const float* g, const float* h, const float* dy, float* dhs, float* gx,
                      long H, bool relu) = nullptr;
};

const RnnGateOps& rnn_gate_ops(CpuIsa isa);
const RnnGateOps& rnn_gate_ops_generic();
const RnnGateOps& rnn_gate_ops_avx2();
const RnnGateOps& rnn_gate_ops_avx512();

}  // namespace anydnn::cpu
