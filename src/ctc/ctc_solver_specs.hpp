// The CTC loss solvers as far as they are not kernel code: name, fallback flag and
// applicability, written once for every backend. A backend's solver file adds run().
#pragma once

#include <string_view>

#include "ctc/ctc_solver.hpp"

namespace anydnn {

// Forward (alpha) and backward (beta) recursions in log space per batch element, the gradient
// from alpha + beta per time step (MIOpen's CTCLossGPU): every float problem, any strides.
class CtcLossAlphaBetaSpec : public CtcLossSolver {
 public:
  std::string_view name() const final { return "CtcLossAlphaBeta"; }
  Applicability applicable(const ExecutionContext&, const CtcLossProblem&) const override {
    return Applicability::yes();
  }
};

}  // namespace anydnn
