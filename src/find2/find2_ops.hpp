// Find 2.0's front-end: find options (miopenFindOptions_t), solutions (miopenSolution_t),
// miopenFindSolutions and miopenRunSolution, for every operator kind through its adapter
// (find2/operator_adapter.hpp). Saving and loading a solution: find2/solution_blob.hpp.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "find2/find2_problem.hpp"
#include "find2/operator_adapter.hpp"
#include "handle/handle.hpp"

namespace anydnn::find2 {

// miopenFindOptions_t: MIOpen's defaults.
struct FindOptions {
  bool tuning = false;
  miopenFindResultsOrder_t results_order = miopenFindResultsOrderByTime;
  size_t workspace_limit = std::numeric_limits<size_t>::max();
  bool has_workspace = false;  // miopenSetFindOptionPreallocatedWorkspace
  void* workspace = nullptr;
  size_t workspace_size = 0;
  std::map<miopenTensorArgumentId_t, void*> tensors;  // miopenSetFindOptionPreallocatedTensor
  unsigned attach_binaries = 0;  // stored only: nothing is compiled, so there is nothing to attach
};

// miopenSolution_t: the problem (a copy), the solver and what Find measured, and where: a
// solution runs only on a handle of the backend it was found on.
class Solution {
 public:
  Solution(Problem problem, FoundSolver found, BackendKind backend, std::string device_id);

  const Problem& problem() const { return problem_; }
  uint64_t solver_id() const { return found_.solver_id; }
  const std::string& solver_name() const { return found_.solver_name; }
  float time_ms() const { return found_.time_ms; }
  size_t workspace_size() const { return found_.workspace_size; }
  BackendKind backend() const { return backend_; }
  const std::string& device_id() const { return device_id_; }

  // The adapter's state between runs.
  RunCache& run_cache() const { return caches_->run; }
  // The saved form (find2/solution_blob.hpp), built once: miopenGetSolutionSize is its size and
  // miopenSaveSolution writes it.
  const std::vector<char>& blob() const;

 private:
  // What a solution builds on demand; movable with it, never shared (solutions are not copied).
  struct Caches {
    RunCache run;
    std::mutex blob_mutex;
    std::vector<char> blob;
  };

  Problem problem_;
  FoundSolver found_;
  BackendKind backend_;
  std::string device_id_;
  std::unique_ptr<Caches> caches_ = std::make_unique<Caches>();
};

const char* backend_kind_name(BackendKind kind);  // "cpu", "cuda"

// miopenFindSolutions: checks the problem, runs its adapter's Find on buffers from the options
// or allocated here (zero-filled; released before returning), orders the solutions as the
// options ask (by time, unmeasured ones last in the order Find gave them; or by workspace, then
// time) and keeps the first `max_solutions`.
std::vector<Solution> find_solutions(Handle& handle, const Problem& problem,
                                     const FindOptions& options, size_t max_solutions);

// One argument of miopenRunSolution; `descriptor` is null when the caller gave none.
struct RunArgument {
  miopenTensorArgumentId_t id = miopenTensorArgumentIdInvalid;
  const TensorDescriptor* descriptor = nullptr;
  void* buffer = nullptr;
};

// miopenRunSolution: every argument of the solution's problem exactly once (InvalidValue naming
// a missing one, BadParm for an id the problem lacks, a repeated id or a null buffer;
// NotImplemented for a descriptor other than the problem's), a workspace of at least the
// solution's (BadParm with both sizes), a handle of the solution's backend (BadParm naming both).
void run_solution(Handle& handle, const Solution& solution, const std::vector<RunArgument>& args,
                  void* workspace, size_t workspace_size);

// miopenGetSolverIdConvAlgorithm: the algorithm of a convolution solver id on any backend this
// library has (InvalidValue otherwise); needs no handle.
miopenConvAlgorithm_t conv_solver_algorithm(uint64_t solver_id);

}  // namespace anydnn::find2
