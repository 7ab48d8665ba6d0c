#include "find2/find2_ops.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "backend/backend.hpp"
#include "conv/conv_solver.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "find2/solution_blob.hpp"

namespace anydnn::find2 {

namespace {

// The scalar arguments of every part, each once.
std::vector<miopenTensorArgumentId_t> scalar_arguments(const Problem& problem) {
  std::vector<miopenTensorArgumentId_t> out;
  for (const auto& part : problem.parts())
    for (const auto id : operator_adapter(part.kind()).scalars(part))
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  return out;
}

// Whether some part's adapter lets a run leave scalar `id` out.
bool scalar_optional(const Problem& problem, miopenTensorArgumentId_t id) {
  for (const auto& part : problem.parts())
    if (operator_adapter(part.kind()).scalar_optional(id)) return true;
  return false;
}

std::string argument_list(const Problem& problem) {
  std::string s;
  for (const auto& [id, desc] : problem.run_tensors())
    s += (s.empty() ? "" : ", ") + tensor_argument_name(id);
  for (const auto id : scalar_arguments(problem))
    s += (s.empty() ? "" : ", ") + tensor_argument_name(id);
  return s;
}

// Measured solutions first, fastest first; unmeasured ones (negative time) after them in the
// order Find gave them. By workspace: smallest first, ties in time order.
void order_solutions(std::vector<FoundSolver>& found, miopenFindResultsOrder_t order) {
  std::stable_sort(found.begin(), found.end(), [](const FoundSolver& a, const FoundSolver& b) {
    const bool ma = a.time_ms >= 0.0f, mb = b.time_ms >= 0.0f;
    if (ma != mb) return ma;
    return ma && a.time_ms < b.time_ms;
  });
  if (order == miopenFindResultsOrderByWorkspaceSize)
    std::stable_sort(found.begin(), found.end(), [](const FoundSolver& a, const FoundSolver& b) {
      return a.workspace_size < b.workspace_size;
    });
}

}  // namespace

const char* backend_kind_name(BackendKind kind) {
  return kind == BackendKind::Cuda ? "cuda" : "cpu";
}

Solution::Solution(Problem problem, FoundSolver found, BackendKind backend, std::string device_id)
    : problem_(std::move(problem)),
      found_(std::move(found)),
      backend_(backend),
      device_id_(std::move(device_id)) {}

const std::vector<char>& Solution::blob() const {
  std::lock_guard<std::mutex> lock(caches_->blob_mutex);
  if (caches_->blob.empty()) caches_->blob = save_solution_blob(*this);
  return caches_->blob;
}

std::vector<Solution> find_solutions(Handle& handle, const Problem& problem,
                                     const FindOptions& options, size_t max_solutions) {
  const Config& cfg = handle.config();
  const OperatorAdapter& adapter = adapter_for(problem);
  const std::string key = adapter.key(handle, problem);  // checks the whole problem first
  adapter.log_command(handle, problem);
  ANYDNN_LOG_I(cfg, "FindSolutions: problem = " << key << ", max solutions = " << max_solutions
                                                << ", tuning = " << (options.tuning ? 1 : 0));

  // Buffers: the options' or our own, zero-filled (MIOpen leaves its own uninitialised, but
  // uninitialised memory can hold denormals or NaNs that distort the timing).
  Backend& backend = handle.backend();
  std::vector<DeviceBuffer> owned;
  std::vector<uint64_t> zero_scalars(8, 0);  // fixed size: pointers into it stay valid
  RunBuffers bufs;
  for (const auto& [id, desc] : problem.run_tensors()) {
    const auto pre = options.tensors.find(id);
    if (pre != options.tensors.end() && pre->second != nullptr) {
      bufs.set(id, pre->second);
      continue;
    }
    const size_t bytes = std::max<size_t>(desc.num_bytes(), 1);
    owned.push_back(backend.allocate(bytes));
    backend.fill_zero(owned.back().get(), bytes);
    bufs.set(id, owned.back().get());
  }
  size_t next_scalar = 0;
  for (const auto id : scalar_arguments(problem)) {
    const auto pre = options.tensors.find(id);
    if (pre != options.tensors.end() && pre->second != nullptr) {
      bufs.set(id, pre->second);
    } else {
      ANYDNN_CHECK(next_scalar < zero_scalars.size(), miopenStatusInternalError,
                   "too many scalar arguments");
      bufs.set(id, &zero_scalars[next_scalar++]);
    }
  }
  for (const auto& [id, ptr] : options.tensors)
    if (!bufs.has(id))
      ANYDNN_LOG_I2(cfg, "FindSolutions: the preallocated "
                             << tensor_argument_name(id) << " is not an argument of the problem");

  FindSettings settings;
  settings.exhaustive = options.tuning;
  settings.workspace_limit = options.workspace_limit;
  DeviceBuffer own_workspace;
  if (options.has_workspace && options.workspace != nullptr) {
    bufs.workspace = options.workspace;
    bufs.workspace_size = std::min(options.workspace_size, options.workspace_limit);
  } else {
    const size_t ws = std::min(adapter.max_workspace(handle, problem), options.workspace_limit);
    if (ws > 0) {
      own_workspace = backend.allocate(ws);
      bufs.workspace = own_workspace.get();
      bufs.workspace_size = ws;
    }
  }
  settings.workspace_limit = std::min(settings.workspace_limit, bufs.workspace_size);

  std::vector<FoundSolver> found = adapter.find(handle, problem, bufs, settings);
  backend.synchronize();  // before our buffers go
  ANYDNN_CHECK(!found.empty(), miopenStatusNotImplemented,
               "no solver applies to " << key
                                       << " (MIOPEN_LOG_LEVEL=6 lists why each was "
                                          "rejected)");
  order_solutions(found, options.results_order);
  if (found.size() > max_solutions) found.resize(max_solutions);

  std::vector<Solution> out;
  for (auto& f : found) {
    ANYDNN_LOG_I(cfg, "Found solution: " << f.solver_name << " , " << f.workspace_size << ", "
                                         << f.time_ms << " (solver id " << f.solver_id << ")");
    out.emplace_back(problem, std::move(f), backend.kind(), backend.device_id());
  }
  return out;
}

void run_solution(Handle& handle, const Solution& solution, const std::vector<RunArgument>& args,
                  void* workspace, size_t workspace_size) {
  const Config& cfg = handle.config();
  Backend& backend = handle.backend();
  ANYDNN_CHECK_BADPARM(solution.backend() == backend.kind(),
                       "the solution was found on the "
                           << backend_kind_name(solution.backend()) << " backend ("
                           << solution.device_id() << "); this handle's backend is "
                           << backend_kind_name(backend.kind()) << " (" << backend.device_id()
                           << "): find the problem's solutions with this handle");
  if (solution.device_id() != backend.device_id())
    ANYDNN_LOG_I(cfg, "running a solution found on " << solution.device_id() << " on "
                                                     << backend.device_id()
                                                     << " (its time was measured there)");

  const Problem& problem = solution.problem();
  const auto tensors = problem.run_tensors();
  const auto scalars = scalar_arguments(problem);
  RunBuffers bufs;
  for (const RunArgument& a : args) {
    const std::string name = tensor_argument_name(a.id);
    const auto t = tensors.find(a.id);
    const bool scalar = std::find(scalars.begin(), scalars.end(), a.id) != scalars.end();
    ANYDNN_CHECK_BADPARM(t != tensors.end() || scalar,
                         name << " is not an argument of the solution's problem (its arguments: "
                              << argument_list(problem) << ")");
    ANYDNN_CHECK_BADPARM(!bufs.has(a.id), name << " is given twice");
    ANYDNN_CHECK_BADPARM(a.buffer != nullptr, "the buffer for " << name << " is a null pointer");
    if (a.descriptor != nullptr) {
      ANYDNN_CHECK_BADPARM(!scalar, name << " is a scalar: it takes no tensor descriptor");
      ANYDNN_CHECK(*a.descriptor == t->second, miopenStatusNotImplemented,
                   "the descriptor given for " << name
                                               << " differs from the problem's: "
                                                  "overriding descriptors is not supported");
    }
    bufs.set(a.id, a.buffer);
  }
  for (const auto& [id, desc] : tensors)
    ANYDNN_CHECK(bufs.has(id), miopenStatusInvalidValue,
                 "no buffer for " << tensor_argument_name(id)
                                  << " (the run needs every argument of the problem: "
                                  << argument_list(problem) << ")");
  for (const auto id : scalars)
    ANYDNN_CHECK(bufs.has(id) || scalar_optional(problem, id), miopenStatusInvalidValue,
                 "no value for the scalar " << tensor_argument_name(id)
                                            << " (the run needs every argument of the problem: "
                                            << argument_list(problem) << ")");

  const size_t given = workspace == nullptr ? 0 : workspace_size;
  ANYDNN_CHECK_BADPARM(given >= solution.workspace_size(),
                       solution.solver_name() << " requires at least " << solution.workspace_size()
                                              << " workspace, while " << given << " was provided");
  bufs.workspace = workspace;
  bufs.workspace_size = given;

  const OperatorAdapter& adapter = adapter_for(problem);
  adapter.log_run_command(handle, problem, solution.solver_id());
  ANYDNN_LOG_I2(cfg, "RunSolution: " << solution.solver_name() << " (solver id "
                                     << solution.solver_id() << ")");
  adapter.run(handle, problem, solution.solver_id(), bufs, solution.run_cache());
}

miopenConvAlgorithm_t conv_solver_algorithm(uint64_t solver_id) {
  // The id's algorithm without a handle and without mutable state (backend.hpp). An id both
  // backends list is the same solver (docs/adding-a-solver.md), so the first answer is the
  // answer.
  if (const ConvSolver* s = find_cpu_conv_solver(solver_id)) return s->algorithm();
  if (const ConvSolver* s = find_cuda_conv_solver(solver_id)) return s->algorithm();
  ANYDNN_THROW(miopenStatusInvalidValue,
               "solver id " << solver_id << " is not a convolution solver of this library");
}

}  // namespace anydnn::find2
