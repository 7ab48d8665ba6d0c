// The LRN solvers as far as they are not kernel code: name and applicability, written once for
// every backend. A backend's solver file derives from the spec and adds run(). Each mode has its
// own solver; both take any strides.
#pragma once

#include <string_view>

#include "lrn/lrn_solver.hpp"

namespace anydnn {

// miopenLRNCrossChannel: the window runs over lrnN neighbouring channels of one pixel.
class LrnCrossChannelSpec : public LrnSolver {
 public:
  std::string_view name() const final { return "LrnCrossChannel"; }
  Applicability applicable(const ExecutionContext&, const LrnProblem& p) const override {
    ANYDNN_REJECT_IF(!p.cross_channel(), "not a cross-channel LRN");
    return Applicability::yes();
  }
};

// miopenLRNWithinChannel: the window is lrnN x lrnN pixels of one map.
class LrnWithinChannelSpec : public LrnSolver {
 public:
  std::string_view name() const final { return "LrnWithinChannel"; }
  Applicability applicable(const ExecutionContext&, const LrnProblem& p) const override {
    ANYDNN_REJECT_IF(p.cross_channel(), "not a within-channel LRN");
    return Applicability::yes();
  }
};

}  // namespace anydnn
