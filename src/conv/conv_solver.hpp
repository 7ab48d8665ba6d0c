// The contract every convolution solver implements (docs/adding-a-solver.md), on top of the
// family-independent part in solver_contract.hpp. A solver is stateless: it answers whether it
// applies to a problem (and why not), how much workspace it needs, and builds an invoker that
// runs the problem on concrete buffers. Stable numeric ids live in the backend's registry file,
// not in the solver.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "activation/fused_epilogue.hpp"
#include "conv/conv_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// Buffers of one call, named in the forward sense like ConvProblem's tensors. The direction
// decides which one is written: y (forward), x (backward data: dx) or w (backward weights: dw);
// the other two are only read.
struct ConvBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;
  size_t workspace_size = 0;
  // Forward only: applied to y as it is written (activation/fused_epilogue.hpp). Set only by the
  // fusion front-end, and only for a solver whose epilogue_support() said yes to its needs();
  // null everywhere else (every other caller, Find, the invoker cache).
  const ConvEpilogue* epilogue = nullptr;
};

using ConvInvoker = std::function<void(const ConvBuffers&)>;

class ConvSolver {
 public:
  static constexpr std::string_view kRegistryLabel = "solver";  // registry.hpp's messages
  virtual ~ConvSolver() = default;
  // Stable name (find-db records, MIOPEN_DEBUG_FIND_ONLY_SOLVER, MIOpenDriver -S).
  virtual std::string_view name() const = 0;
  virtual miopenConvAlgorithm_t algorithm() const = 0;
  // Same bits for the same inputs every run on this problem (MIOPEN_CONVOLUTION_ATTRIB_
  // DETERMINISTIC asks for it; a solver may answer yes only because the problem asks, by then
  // offering only its deterministic configurations).
  virtual bool deterministic(const ConvProblem& /*p*/) const { return true; }
  // A fallback (the naive solvers) is there for coverage, not speed: Find times it only when no
  // other solver applies and fits, and immediate mode ranks it after the others.
  virtual bool fallback_only() const { return false; }
  virtual Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const = 0;
  virtual size_t workspace_size(const ExecutionContext& /*ctx*/, const ConvProblem& /*p*/) const {
    return 0;
  }
  // Predicted run time in milliseconds on this backend's device, or a negative value when the
  // solver has no cost model (MIOpen's solvers answer the same question with GetWti). Without a
  // find-db record, immediate mode lists solutions by it and Find's default mode times only the
  // solvers predicted near the best (docs/find-and-heuristics.md). Only called for applicable
  // problems; bench/solver_bench prints it next to the measured time, which is how the models
  // are validated.
  virtual double estimated_ms(const ExecutionContext& /*ctx*/, const ConvProblem& /*p*/) const {
    return -1.0;
  }
  // Only called for applicable problems.
  virtual ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const = 0;

  // --- tuned solvers: several configurations that only a measurement ranks (cuDNN's engines) ---
  // A tuned solver's configuration is a parameter string kept in the find-db entry (MIOpen
  // keeps its solvers' PerformanceConfig in the perf-db). An exhaustive Find calls search() on
  // the caller's buffers; any other path takes default_params(). workspace_size() above is the
  // most any configuration offered needs (what GetWorkSpaceSize reports); least_workspace_size()
  // decides whether the solver fits a caller's workspace at all.
  virtual bool tuned() const { return false; }
  // The configuration to run without a measurement, among those needing at most
  // `workspace_limit` bytes; empty for a solver that is not tuned.
  virtual std::string default_params(const ExecutionContext& /*ctx*/, const ConvProblem& /*p*/,
                                     size_t /*workspace_limit*/) const {
    return {};
  }
  // Times the configurations that fit the buffers' workspace on those buffers (the direction's
  // output is overwritten) and returns the fastest.
  virtual std::string search(const ExecutionContext& ctx, const ConvProblem& p,
                             const ConvBuffers& b) const {
    return default_params(ctx, p, b.workspace_size);
  }
  virtual size_t least_workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const {
    return workspace_size(ctx, p);
  }
  virtual size_t tuned_workspace_size(const ExecutionContext& ctx, const ConvProblem& p,
                                      const std::string& /*params*/) const {
    return workspace_size(ctx, p);
  }
  // An invoker of one configuration; params the solver no longer knows (a record from another
  // cuDNN version) fall back to default_params with a log line.
  virtual ConvInvoker make_tuned_invoker(const ExecutionContext& ctx, const ConvProblem& p,
                                         const std::string& /*params*/) const {
    return make_invoker(ctx, p);
  }
  // Whether this solver's invoker applies an epilogue with these needs to a forward problem it
  // is applicable to (ConvBuffers::epilogue; the contract is activation/fused_epilogue.hpp). The
  // same invoker runs with and without one, so Find's timings and the invoker cache are shared.
  // Default: no. Only asked about applicable forward problems.
  virtual Applicability epilogue_support(const ExecutionContext& /*ctx*/, const ConvProblem& /*p*/,
                                         const ConvEpilogueNeeds& /*needs*/) const {
    return Applicability::no("no fused epilogue");
  }
};

// The backend's ordered convolution solvers (backend/*/conv_registry.cpp).
using ConvSolverEntry = SolverEntry<ConvSolver>;
using ConvSolverRegistry = SolverRegistry<ConvSolver>;

// Yes when the problem is in direction `dir`, else no with the reason every solver gives ("not a
// forward problem", "not a backward-data problem", "not a backward-weights problem").
Applicability direction_is(const ConvProblem& p, ConvDirection dir);

// MIOpen's enumerator name of `algo` in direction `dir` (find-db records, logs).
const char* algorithm_name(miopenConvAlgorithm_t algo, ConvDirection dir);

// A convolution solver of the CPU / CUDA registry by its stable id, without a handle (Find 2.0
// reads a solution's algorithm from its id alone): each registry is built once per process on
// first use and never changed (solver objects are stateless). nullptr when that registry has no
// such id, or (CUDA) when the library was built without the CUDA backend. Defined beside each
// backend's registry (backend/cpu/conv_registry.cpp, backend/cuda/conv_registry.cu,
// backend/common/cuda_unavailable.cpp).
const ConvSolver* find_cpu_conv_solver(uint64_t id);
const ConvSolver* find_cuda_conv_solver(uint64_t id);

}  // namespace anydnn
