// The contract every softmax solver implements (docs/adding-a-solver.md): a name, applicability
// with a reason, and a run on concrete buffers. Softmax needs no workspace and no tuning: the
// front-end (softmax/softmax_ops.cpp) runs the first applicable solver of the backend's ordered
// registry (softmax/softmax_registry.hpp).
#pragma once

#include <string_view>

#include "softmax/softmax_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The buffers of one call by role. Forward reads x and writes y; backward reads y and dy and
// writes dx. alpha / beta are the problem's (out = alpha * softmax + beta * out).
struct SoftmaxBuffers {
  const void* x = nullptr;
  void* y = nullptr;  // forward output; backward input
  const void* dy = nullptr;
  void* dx = nullptr;
};

class SoftmaxSolver : public RunSolver<SoftmaxProblem, SoftmaxBuffers> {
 public:
  static constexpr std::string_view kRegistryLabel = "softmax solver";  // registry.hpp
};

using SoftmaxSolverEntry = SolverEntry<SoftmaxSolver>;
using SoftmaxSolverRegistry = SolverRegistry<SoftmaxSolver>;

}  // namespace anydnn
