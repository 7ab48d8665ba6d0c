// The contract every activation solver implements (docs/adding-a-solver.md): a name,
// applicability with a reason, and a run on concrete buffers. Activation needs no workspace and
// no tuning, so there is no Find: the front-end (activation/activation_ops.cpp) runs the first
// applicable solver of the backend's ordered registry (activation/activation_registry.hpp).
#pragma once

#include <string_view>

#include "activation/activation_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The buffers of one call by role. Forward reads x and writes y; backward reads x, y and dy
// and writes dx. The output is out = alpha * f + beta * out (the prior output is read only
// when beta != 0).
struct ActivationBuffers {
  const void* x = nullptr;
  void* y = nullptr;  // forward output; backward input (the forward output)
  const void* dy = nullptr;
  void* dx = nullptr;
  float alpha = 1.0f, beta = 0.0f;
};

class ActivationSolver : public RunSolver<ActivationProblem, ActivationBuffers> {
 public:
  static constexpr std::string_view kRegistryLabel = "activation solver";  // registry.hpp
};

using ActivationSolverEntry = SolverEntry<ActivationSolver>;
using ActivationSolverRegistry = SolverRegistry<ActivationSolver>;

}  // namespace anydnn
