// Backend-agnostic convolution front-end: solver selection, workspace queries, Find, the legacy
// run-what-Find-chose calls and immediate mode. The C shims in src/api call only these.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "db/find_db.hpp"
#include "handle/handle.hpp"

namespace anydnn {

// The problem's key in the find-db and the invoker cache: its network config plus what changes
// the numerics or the solver set under this handle (TF32 allowed for fp32, the deterministic
// attribute), so that a record measured under one setting is never reused under another.
std::string conv_db_key(const Handle& handle, const ConvProblem& p);
// The same from the configuration alone (the CUDA backend's cuDNN engine cache keys on it).
std::string conv_db_key(const Config& config, const ConvProblem& p);

// Whether the environment leaves this solver switched on (MIOPEN_DEBUG_CONV_<ALGO>,
// MIOPEN_DEBUG_FIND_ONLY_SOLVER); the reason goes to `why` when it does not.
bool conv_solver_enabled(const Config& config, const ConvSolverEntry& entry, std::string* why);

// Enabled solvers that apply to the problem, in registry order. Each rejection is logged at
// Info2 with its reason.
std::vector<const ConvSolverEntry*> applicable_conv_solvers(Handle& handle, const ConvProblem& p);

// Largest workspace any applicable solver needs (MIOpen's *GetWorkSpaceSize).
size_t conv_workspace_size(Handle& handle, const ConvProblem& p);

// Times the applicable solvers on the given buffers (the output is overwritten), registers the
// fastest invoker per algorithm in the handle and stores the record. Returns the fastest solver
// of each algorithm, sorted by time. Solvers needing more workspace than given are skipped (and
// the record is then left as it was, as MIOpen leaves its find-db); an exhaustive search times
// every other one, the default mode only those whose cost model predicts them near the best
// (plus those without a model). The find mode decides whether a find-db record answers instead.
std::vector<ConvFindEntry> conv_find(Handle& handle, const ConvProblem& p, const ConvBuffers& bufs,
                                     bool exhaustive_search);

// Find 2.0 (miopenFindSolutions): the same search, find mode and find-db record as conv_find,
// but every solver it timed (or the record lists) comes back, fastest first, not only the best
// of each algorithm; the invokers it built go into the handle's immediate-mode cache, which
// conv_run_solution runs. `function` names the caller in the log.
std::vector<ConvFindEntry> conv_find_solvers(Handle& handle, const ConvProblem& p,
                                             const ConvBuffers& bufs, bool exhaustive_search,
                                             const char* function);

// How Find times one candidate: a cold run, then warm runs within a budget; the minimum of the
// warm runs (see conv_ops.cpp). Find 2.0 times every operator's solvers this way.
float find_time_ms(Handle& handle, const std::function<void()>& run);

// Scaling of a run: output = alpha * convolution + beta * output.
struct ConvScale {
  float alpha = 1.0f;
  float beta = 0.0f;
  bool identity() const { return alpha == 1.0f && beta == 0.0f; }
};

// Runs the invoker a previous Find registered for `algo` on this problem.
void conv_run_found(Handle& handle, const ConvProblem& p, miopenConvAlgorithm_t algo,
                    const ConvBuffers& bufs, ConvScale scale = {});

// Immediate mode.
std::vector<miopenConvSolution_t> conv_solutions(Handle& handle, const ConvProblem& p);
size_t conv_solution_workspace_size(Handle& handle, const ConvProblem& p, uint64_t solution_id);
void conv_compile_solution(Handle& handle, const ConvProblem& p, uint64_t solution_id);
void conv_run_solution(Handle& handle, const ConvProblem& p, uint64_t solution_id,
                       const ConvBuffers& bufs);

}  // namespace anydnn
