// The contract every pooling solver implements (docs/adding-a-solver.md): a name, applicability
// with a reason, and a run on concrete buffers. Pooling needs no scratch beyond the caller's
// index workspace and no tuning, so there is no Find: the front-end (pooling/pooling_ops.cpp)
// runs the first applicable solver of the backend's ordered registry
// (pooling/pooling_registry.hpp).
#pragma once

#include <string_view>

#include "pooling/pooling_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The buffers of one call by role. Forward reads x, writes y (and the indices into workspace
// when the problem saves them); backward reads dy (and the indices) and writes dx. The output
// is out = alpha * pooled + beta * out (the prior output is read only when beta != 0).
struct PoolingBuffers {
  const void* x = nullptr;
  void* y = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
  void* workspace = nullptr;
  float alpha = 1.0f, beta = 0.0f;
};

class PoolingSolver : public RunSolver<PoolingProblem, PoolingBuffers> {
 public:
  static constexpr std::string_view kRegistryLabel = "pooling solver";  // registry.hpp
};

using PoolingSolverEntry = SolverEntry<PoolingSolver>;
using PoolingSolverRegistry = SolverRegistry<PoolingSolver>;

}  // namespace anydnn
