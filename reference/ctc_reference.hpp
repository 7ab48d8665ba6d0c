// Naive CTC loss reference in double: the test oracle and MIOpenDriver ctc's -V 1 check. Exact
// log-space arithmetic (-infinity for log 0), one batch element at a time, sharing no code with
// the library. Follows MIOpen's host code (driver/ctc_verify.hpp) in its semantics:
//   probs [T, N, C] in packed logical order; with apply_softmax the values are activations and a
//   log-softmax over C comes first, the gradient is with respect to the activations;
//   without it the values are log-probabilities and the gradient is MIOpen's
//   -exp(log(sum alpha beta) - 2 x - log P) (with respect to p = exp(x));
//   the blank id is clamped to [0, C - 1]; gradients past an element's input length are 0.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace anydnn::ref {

struct CtcDesc {
  int blank = 0;
  bool apply_softmax = true;
};

struct CtcResult {
  std::vector<double> losses;     // [N]
  std::vector<double> gradients;  // [T, N, C]
};

// lens = T, N, C; labels concatenated; lengths per batch element. Assumes a valid problem.
CtcResult ctc_loss(const CtcDesc& d, const std::array<size_t, 3>& lens,
                   const std::vector<double>& probs, const std::vector<int>& labels,
                   const std::vector<int>& label_lengths, const std::vector<int>& input_lengths);

// MIOpenDriver ctc's tolerances: losses 1e-5, gradients 1e-3 (on relative_rms, verify.hpp).
constexpr double kCtcLossTolerance = 1e-5;
constexpr double kCtcGradientTolerance = 1e-3;

}  // namespace anydnn::ref
