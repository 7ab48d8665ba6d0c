// Naive RNN forward reference in double (test oracle and driver check), written from MIOpen's
// definitions (shared/reference/miopen.md §e) independently of the library: its own walk of the
// packed weight layout, one sequence and one step at a time.
#pragma once

#include <cstddef>
#include <vector>

namespace anydnn::ref {

struct RnnConfig {
  int mode = 1;  // 0 relu, 1 tanh, 2 LSTM, 3 GRU
  int hidden = 0, layers = 1;
  bool bidirectional = false, skip_input = false, bias = false;
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
                             const std::vector<double>& cx, const std::vector<double>& w);

struct RnnBackwardResult {
  std::vector<double> dx, dhx, dcx, dw;
};

// Gradients of L = sum(y*dy) + sum(hy*dhy) + sum(cy*dcy) by backpropagation through time in
// double (dhy / dcy may be empty: zeros). dw has the packed weight layout.
RnnBackwardResult rnn_backward(const RnnConfig& c, size_t input, const std::vector<size_t>& batch,
                               const std::vector<double>& x, const std::vector<double>& hx,
                               const std::vector<double>& cx, const std::vector<double>& w,
                               const std::vector<double>& dy, const std::vector<double>& dhy,
                               const std::vector<double>& dcy);

}  // namespace anydnn::ref
