// The tensor-op solvers as far as they are not kernel code: name, fallback flag and
// applicability, written once for every backend. A backend's solver file derives from the spec
// and adds run().
#pragma once

#include <string_view>

#include "tensor_ops/tensor_op_solver.hpp"

namespace anydnn {

// The plan is one unit-stride run (packed tensors of one layout; B the same shape or a single
// value): one flat loop split evenly across threads.
class TensorOpPackedSpec : public TensorOpSolver {
 public:
  std::string_view name() const final { return "TensorOpPacked"; }
  Applicability applicable(const ExecutionContext& ctx, const TensorOpProblem& p) const override;
};

// Rows that are unit-stride in every tensor (B unit-stride or one value per row): the outer
// dimensions any strides, e.g. a per-channel bias, padded rows, a sub-tensor of a larger one.
class TensorOpRowsSpec : public TensorOpSolver {
 public:
  std::string_view name() const final { return "TensorOpRows"; }
  Applicability applicable(const ExecutionContext& ctx, const TensorOpProblem& p) const override;
};

// Any strides (layout conversions such as NCHW -> NHWC, B broadcast along the innermost
// dimension): the fallback.
class TensorOpStridedSpec : public TensorOpSolver {
 public:
  std::string_view name() const final { return "TensorOpStrided"; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const TensorOpProblem&) const override {
    return Applicability::yes();
  }
};

}  // namespace anydnn
