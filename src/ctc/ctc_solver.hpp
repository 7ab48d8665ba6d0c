// The contract every CTC loss solver implements (docs/adding-a-solver.md): a name,
// applicability with a reason, and a run on concrete buffers. The front-end (ctc/ctc_ops.cpp)
// runs the first applicable solver of the backend's ordered registry (ctc/ctc_registry.hpp).
#pragma once

#include <cstddef>
#include <string_view>

#include "ctc/ctc_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The device buffers of one call (host memory on the CPU backend). The integer arrays are the
// problem's copies. The workspace holds at least p.workspace_size() bytes.
struct CtcLossBuffers {
  const void* probs = nullptr;
  void* losses = nullptr;     // [batch]
  void* gradients = nullptr;  // like probs
  void* workspace = nullptr;
};

class CtcLossSolver : public RunSolver<CtcLossProblem, CtcLossBuffers> {
 public:
  static constexpr std::string_view kRegistryLabel = "CTC loss solver";  // registry.hpp
};

using CtcLossSolverEntry = SolverEntry<CtcLossSolver>;
using CtcLossSolverRegistry = SolverRegistry<CtcLossSolver>;

}  // namespace anydnn
