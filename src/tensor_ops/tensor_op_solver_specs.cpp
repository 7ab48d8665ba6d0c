#include "tensor_ops/tensor_op_solver_specs.hpp"

namespace anydnn {

Applicability TensorOpPackedSpec::applicable(const ExecutionContext&,
                                             const TensorOpProblem& p) const {
  const TensorOpPlan& plan = p.plan();
  ANYDNN_REJECT_IF(plan.ndim != 1, "the tensors do not collapse to one run");
  ANYDNN_REJECT_IF(!plan.inner_contiguous(), "the run is not unit-stride");
  return Applicability::yes();
}

Applicability TensorOpRowsSpec::applicable(const ExecutionContext&,
                                           const TensorOpProblem& p) const {
  const TensorOpPlan& plan = p.plan();
  ANYDNN_REJECT_IF(plan.ndim < 2, "one run: TensorOpPacked's case");
  ANYDNN_REJECT_IF(!plan.inner_contiguous(), "the innermost dimension is not unit-stride");
  return Applicability::yes();
}

}  // namespace anydnn
