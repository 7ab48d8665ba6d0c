// The reduction solvers as far as they are not kernel code: name, fallback flag and
// applicability, written once for every backend. A backend's solver file derives from the spec
// and adds run().
#pragma once

#include <string_view>

#include "reduction/reduce_solver.hpp"

namespace anydnn {

// Each output's reduced elements are one unit-stride run of A (a reduction over the innermost
// dimensions of a packed tensor: per-row sums, a global sum): contiguous, vectorised loads.
class ReduceRowsSpec : public ReduceSolver {
 public:
  std::string_view name() const final { return "ReduceRows"; }
  Applicability applicable(const ExecutionContext& ctx, const ReduceProblem& p) const override;
};

// The outputs are a unit-stride run of A and of C, the reduced dimensions outside them (a
// reduction over N, or over N, H, W of NHWC): neighbouring outputs read neighbouring elements.
class ReduceColumnsSpec : public ReduceSolver {
 public:
  std::string_view name() const final { return "ReduceColumns"; }
  Applicability applicable(const ExecutionContext& ctx, const ReduceProblem& p) const override;
};

// Any strides and any reduced-dimension pattern: the fallback.
class ReduceStridedSpec : public ReduceSolver {
 public:
  std::string_view name() const final { return "ReduceStrided"; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const ReduceProblem&) const override {
    return Applicability::yes();
  }
};

}  // namespace anydnn
