// Applicability of the convolution solvers both backends implement (solver_specs.hpp).
#include "conv/solver_specs.hpp"

namespace anydnn {

Applicability GemmSolverSpec::applicable(const ExecutionContext&, const ConvProblem& p) const {
  if (Applicability a = direction_is(p, dir_); !a) return a;
  return one_by_one_ ? gemm_1x1_support(p, blas_) : gemm_problem_support(p, blas_);
}

Applicability ConvDirectNaiveSpec::applicable(const ExecutionContext&, const ConvProblem& p) const {
  return direction_is(p, dir_);
}

}  // namespace anydnn
