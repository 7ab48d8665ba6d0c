// C API: Find 2.0 solutions: miopenFindSolutions, miopenRunSolution, their attributes, saving and
// loading them, and a convolution solver id's algorithm. Problems and options: find2_api.cpp.
#include <miopen/miopen.h>

#include <cstring>
#include <memory>
#include <vector>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "find2/solution_blob.hpp"

using namespace anydnn;
using namespace anydnn::api;

extern "C" miopenStatus_t miopenFindSolutions(miopenHandle_t handle, miopenProblem_t problem,
                                              miopenFindOptions_t options,
                                              miopenSolution_t* solutions, size_t* numSolutions,
                                              size_t maxSolutions) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, problem, options, solutions, numSolutions, maxSolutions);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    const find2::Problem& p = deref(problem);
    const find2::FindOptions defaults;
    const find2::FindOptions& o = options == nullptr ? defaults : deref(options);
    ANYDNN_CHECK_BADPARM(solutions != nullptr, "solutions is a null pointer");
    ANYDNN_CHECK_BADPARM(maxSolutions >= 1, "maxSolutions is 0");
    auto found = find2::find_solutions(h, p, o, maxSolutions);
    // Every object is made before any is handed out, so a failure writes nothing.
    std::vector<std::unique_ptr<SolutionObject>> made;
    for (auto& s : found)
      made.push_back(std::make_unique<SolutionObject>(std::move(s)));
    for (size_t i = 0; i < made.size(); ++i)
      solutions[i] = made[i].release();
    if (numSolutions != nullptr) *numSolutions = made.size();
  });
}

extern "C" miopenStatus_t miopenRunSolution(miopenHandle_t handle, miopenSolution_t solution,
                                            size_t nInputs, const miopenTensorArgument_t* tensors,
                                            void* workspace, size_t workspaceSize) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, solution, nInputs, log_tensor_arguments(tensors, nInputs), workspace,
                 workspaceSize);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    const find2::Solution& s = deref(solution);
    ANYDNN_CHECK_BADPARM(tensors != nullptr || nInputs == 0, "tensors is a null pointer");
    std::vector<find2::RunArgument> args;
    for (size_t i = 0; i < nInputs; ++i) {
      const miopenTensorArgument_t& t = tensors[i];
      find2::RunArgument a;
      a.id = t.id;
      a.buffer = t.buffer;
      if (t.descriptor != nullptr)
        a.descriptor = &deref_set(*t.descriptor, "miopenTensorArgument_t::descriptor");
      args.push_back(a);
    }
    find2::run_solution(h, s, args, workspace, workspaceSize);
  });
}

extern "C" miopenStatus_t miopenDestroySolution(miopenSolution_t solution) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solution);
  return guard(cfg, __func__, [&] {
    deref(solution);
    delete static_cast<SolutionObject*>(solution);
  });
}

extern "C" miopenStatus_t miopenLoadSolution(miopenSolution_t* solution, const char* data,
                                             size_t size) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solution, static_cast<const void*>(data), size);
  return guard(cfg, __func__, [&] {
    miopenSolution_t& out = deref_out(solution, "solution");
    auto loaded = std::make_unique<SolutionObject>(find2::load_solution_blob(data, size));
    out = loaded.release();
  });
}

extern "C" miopenStatus_t miopenSaveSolution(miopenSolution_t solution, char* data) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solution, static_cast<const void*>(data));
  return guard(cfg, __func__, [&] {
    const find2::Solution& s = deref(solution);
    ANYDNN_CHECK_BADPARM(data != nullptr, "Data parameter should not be a nullptr.");
    const std::vector<char>& blob = s.blob();
    std::memcpy(data, blob.data(), blob.size());
  });
}

extern "C" miopenStatus_t miopenGetSolutionSize(miopenSolution_t solution, size_t* size) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solution, size);
  return guard(cfg, __func__, [&] {
    const find2::Solution& s = deref(solution);
    deref_out(size, "size") = s.blob().size();
  });
}

extern "C" miopenStatus_t miopenGetSolutionWorkspaceSize(miopenSolution_t solution,
                                                         size_t* workspaceSize) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solution, workspaceSize);
  return guard(cfg, __func__, [&] {
    const find2::Solution& s = deref(solution);
    deref_out(workspaceSize, "workspaceSize") = s.workspace_size();
  });
}

extern "C" miopenStatus_t miopenGetSolutionTime(miopenSolution_t solution, float* time) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solution, time);
  return guard(cfg, __func__, [&] {
    const find2::Solution& s = deref(solution);
    deref_out(time, "time") = s.time_ms();
  });
}

extern "C" miopenStatus_t miopenGetSolutionSolverId(miopenSolution_t solution, uint64_t* solverId) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solution, solverId);
  return guard(cfg, __func__, [&] {
    const find2::Solution& s = deref(solution);
    deref_out(solverId, "solverId") = s.solver_id();
  });
}

extern "C" miopenStatus_t miopenGetSolverIdConvAlgorithm(uint64_t solverId,
                                                         miopenConvAlgorithm_t* result) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, solverId, result);
  return guard(cfg, __func__, [&] {
    miopenConvAlgorithm_t& out = deref_out(result, "result");
    out = find2::conv_solver_algorithm(solverId);
  });
}
