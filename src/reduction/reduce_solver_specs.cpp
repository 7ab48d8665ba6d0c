#include "reduction/reduce_solver_specs.hpp"

namespace anydnn {

Applicability ReduceRowsSpec::applicable(const ExecutionContext&, const ReduceProblem& p) const {
  const ReducePlan& plan = p.plan();
  ANYDNN_REJECT_IF(!plan.red_contiguous(), "the reduced elements are not one unit-stride run");
  ANYDNN_REJECT_IF(plan.red_count == 1, "nothing to reduce (a copy): ReduceStrided's case");
  return Applicability::yes();
}

Applicability ReduceColumnsSpec::applicable(const ExecutionContext&, const ReduceProblem& p) const {
  const ReducePlan& plan = p.plan();
  const int i = plan.out_ndim - 1;
  ANYDNN_REJECT_IF(plan.out_count == 1, "one output: ReduceRows' case");
  ANYDNN_REJECT_IF(plan.out_a[i] != 1 || plan.out_c[i] != 1,
                   "the innermost output dimension is not unit-stride in A and C");
  ANYDNN_REJECT_IF(plan.red_contiguous() && plan.red_count > 1,
                   "the reduced elements are one unit-stride run: ReduceRows' case");
  return Applicability::yes();
}

}  // namespace anydnn
