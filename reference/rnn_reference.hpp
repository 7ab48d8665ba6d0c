// RNN reference in double (test oracle and driver check), written from MIOpen's definitions
// (shared/reference/miopen.md §e) independently of the library: its own walk of the packed weight
// layout, one step at a time. The matrix products go through a DoubleGemm (double_gemm.hpp): each
// step's hidden-side product covers all its sequences at once, and the input side, the input
// gradient and the weight gradients cover every row at once, so a full-size DeepBench layer
// (up to ~9 TFLOP in double) verifies in seconds on a GPU (ref::gpu::make_double_gemm) and in
// tens of seconds with OpenBLAS (the default), where a per-sequence loop took minutes.
#pragma once

#include <cstddef>
#include <vector>

#include "double_gemm.hpp"

namespace anydnn::ref {

struct RnnConfig {
  int mode = 1;  // 0 relu, 1 tanh, 2 LSTM, 3 GRU
  int hidden = 0, layers = 1;
  bool bidirectional = false, skip_input = false, bias = false;
  // Dropout between layers (training passes; rnn_forward models a training forward): element i
  // of layer l's output rows (sum(B_t) x D*H, row-major) is kept, scaled by 1 / (1 - dropout),
  // when anydnn's counter-based generator (src/core/dropout_descriptor.hpp) says so for
  // (dropout_seed, dropout_counter * 1024 + l, i).
  double dropout = 0.0;
  unsigned long long dropout_seed = 0, dropout_counter = 0;
};

struct RnnForwardResult {
  std::vector<double> y;       // sum(B_t) x D*H packed rows
  std::vector<double> hy, cy;  // L*D x B_0 x H
};

// Packed weight count for input size I.
size_t rnn_weight_count(const RnnConfig& c, size_t input);

// x: sum(B_t) x I packed rows; hx / cx: L*D x B_0 x H or empty (zeros); w: packed weights.
RnnForwardResult rnn_forward(const RnnConfig& c, size_t input, const std::vector<size_t>& batch,
                             const std::vector<double>& x, const std::vector<double>& hx,
                             const std::vector<double>& cx, const std::vector<double>& w,
                             DoubleGemm* gemm = nullptr);

struct RnnBackwardResult {
  std::vector<double> dx, dhx, dcx, dw;
};

// Gradients of L = sum(y*dy) + sum(hy*dhy) + sum(cy*dcy) by backpropagation through time in
// double (dhy / dcy may be empty: zeros). dw has the packed weight layout. gemm: nullptr is
// cpu_double_gemm().
RnnBackwardResult rnn_backward(const RnnConfig& c, size_t input, const std::vector<size_t>& batch,
                               const std::vector<double>& x, const std::vector<double>& hx,
                               const std::vector<double>& cx, const std::vector<double>& w,
                               const std::vector<double>& dy, const std::vector<double>& dhy,
                               const std::vector<double>& dcy, DoubleGemm* gemm = nullptr);

}  // namespace anydnn::ref
