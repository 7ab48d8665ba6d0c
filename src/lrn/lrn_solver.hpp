// The contract every LRN solver implements (docs/adding-a-solver.md): a name, applicability
// with a reason, and a run on concrete buffers. LRN needs no tuning: the front-end
// (lrn/lrn_ops.cpp) runs the first applicable solver of the backend's ordered registry
// (lrn/lrn_registry.hpp). Its workspace is the client's: the scale a forward call with
// do_backward writes and backward reads (lrn/lrn_problem.hpp).
#pragma once

#include <string_view>

#include "lrn/lrn_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The buffers of one call by role. Forward reads x and writes y (and the scale when the problem
// keeps it); backward reads y, dy, x and the scale and writes dx. MIOpen ignores the calls'
// alpha / beta: the output is overwritten.
struct LrnBuffers {
  const void* x = nullptr;
  void* y = nullptr;  // forward output; backward input
  const void* dy = nullptr;
  void* dx = nullptr;
  void* workspace = nullptr;  // the scale, at y's strides, in the data type
};

class LrnSolver : public RunSolver<LrnProblem, LrnBuffers> {
 public:
  static constexpr std::string_view kRegistryLabel = "LRN solver";  // registry.hpp
};

using LrnSolverEntry = SolverEntry<LrnSolver>;
using LrnSolverRegistry = SolverRegistry<LrnSolver>;

}  // namespace anydnn
