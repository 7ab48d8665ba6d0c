// C API: convolution immediate mode (GetSolutionCount, GetSolution, GetSolutionWorkspaceSize,
// CompileSolution, Immediate) for all three directions.
#include <miopen/miopen.h>

#include <algorithm>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/conv_call.hpp"
#include "conv/conv_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

struct Descs {
  ConvDirection dir;
  miopenTensorDescriptor_t x, w;
  miopenConvolutionDescriptor_t conv;
  miopenTensorDescriptor_t y;
  ConvProblem problem() const { return make_conv_problem(dir, x, w, conv, y); }
};

miopenStatus_t solution_count(const char* fn, miopenHandle_t handle, const Descs& d,
                              size_t* solutionCount) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    size_t& out = deref_out(solutionCount, "solutionCount");
    out = conv_solutions(h, d.problem()).size();
  });
}

miopenStatus_t get_solutions(const char* fn, miopenHandle_t handle, const Descs& d,
                             size_t maxSolutionCount, size_t* solutionCount,
                             miopenConvSolution_t* solutions) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    size_t& count = deref_out(solutionCount, "solutionCount");
    ANYDNN_CHECK_BADPARM(solutions != nullptr, "solutions is a null pointer");
    ANYDNN_CHECK_BADPARM(maxSolutionCount >= 1, "maxSolutionCount must be >= 1");
    const auto all = conv_solutions(h, d.problem());
    ANYDNN_CHECK(!all.empty(), miopenStatusNotImplemented,
                 "Requested convolution is not supported or Immediate mode Fallback "
                 "unsuccessful.");
    const size_t n = std::min(maxSolutionCount, all.size());
    std::copy(all.begin(), all.begin() + static_cast<long>(n), solutions);
    count = n;
  });
}

miopenStatus_t solution_workspace(const char* fn, miopenHandle_t handle, const Descs& d,
                                  uint64_t solution_id, size_t* workSpaceSize) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    size_t& out = deref_out(workSpaceSize, "workSpaceSize");
    out = conv_solution_workspace_size(h, d.problem(), solution_id);
  });
}

miopenStatus_t compile_solution(const char* fn, miopenHandle_t handle, const Descs& d,
                                uint64_t solution_id) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    conv_compile_solution(h, d.problem(), solution_id);
  });
}

miopenStatus_t immediate(const char* fn, miopenHandle_t handle, const Descs& d, const void* x,
                         const void* w, const void* y, void* workSpace, size_t workSpaceSize,
                         uint64_t solution_id) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    const ConvProblem p = d.problem();
    log_conv_command(h.config(), "LogCmdConvolution", p, solution_id);
    conv_run_solution(h, p, solution_id, make_conv_buffers(p, x, w, y, workSpace, workSpaceSize));
  });
}

}  // namespace

// ---------------------------------------------------------------------------------- forward

extern "C" miopenStatus_t miopenConvolutionForwardGetSolutionCount(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, size_t* solutionCount) {
  ANYDNN_LOG_API(config_of(handle), handle, wDesc, xDesc, convDesc, yDesc, solutionCount);
  return solution_count(__func__, handle, {ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc},
                        solutionCount);
}

extern "C" miopenStatus_t miopenConvolutionForwardGetSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, const size_t maxSolutionCount, size_t* solutionCount,
    miopenConvSolution_t* solutions) {
  ANYDNN_LOG_API(config_of(handle), handle, wDesc, xDesc, convDesc, yDesc, maxSolutionCount,
                 solutionCount, solutions);
  return get_solutions(__func__, handle, {ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc},
                       maxSolutionCount, solutionCount, solutions);
}

extern "C" miopenStatus_t miopenConvolutionForwardGetSolutionWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, const uint64_t solution_id, size_t* workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, wDesc, xDesc, convDesc, yDesc, solution_id,
                 workSpaceSize);
  return solution_workspace(__func__, handle,
                            {ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc}, solution_id,
                            workSpaceSize);
}

extern "C" miopenStatus_t miopenConvolutionForwardCompileSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, const uint64_t solution_id) {
  ANYDNN_LOG_API(config_of(handle), handle, wDesc, xDesc, convDesc, yDesc, solution_id);
  return compile_solution(__func__, handle, {ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc},
                          solution_id);
}

extern "C" miopenStatus_t miopenConvolutionForwardImmediate(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t yDesc, void* y,
    void* workSpace, size_t workSpaceSize, const uint64_t solution_id) {
  ANYDNN_LOG_API(config_of(handle), handle, wDesc, w, xDesc, x, convDesc, yDesc, y, workSpace,
                 workSpaceSize, solution_id);
  return immediate(__func__, handle, {ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc}, x, w,
                   y, workSpace, workSpaceSize, solution_id);
}

// ---------------------------------------------------------------------------- backward data

extern "C" miopenStatus_t miopenConvolutionBackwardDataGetSolutionCount(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, size_t* solutionCount) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, wDesc, convDesc, dxDesc, solutionCount);
  return solution_count(__func__, handle,
                        {ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc},
                        solutionCount);
}

extern "C" miopenStatus_t miopenConvolutionBackwardDataGetSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, const size_t maxSolutionCount, size_t* solutionCount,
    miopenConvSolution_t* solutions) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, wDesc, convDesc, dxDesc, maxSolutionCount,
                 solutionCount, solutions);
  return get_solutions(__func__, handle,
                       {ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc},
                       maxSolutionCount, solutionCount, solutions);
}

extern "C" miopenStatus_t miopenConvolutionBackwardDataGetSolutionWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, const uint64_t solution_id, size_t* workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, wDesc, convDesc, dxDesc, solution_id,
                 workSpaceSize);
  return solution_workspace(__func__, handle,
                            {ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc},
                            solution_id, workSpaceSize);
}

extern "C" miopenStatus_t miopenConvolutionBackwardDataCompileSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, const uint64_t solution_id) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, wDesc, convDesc, dxDesc, solution_id);
  return compile_solution(__func__, handle,
                          {ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc},
                          solution_id);
}

extern "C" miopenStatus_t miopenConvolutionBackwardDataImmediate(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dxDesc, void* dx,
    void* workSpace, size_t workSpaceSize, const uint64_t solution_id) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, dy, wDesc, w, convDesc, dxDesc, dx, workSpace,
                 workSpaceSize, solution_id);
  return immediate(__func__, handle, {ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc},
                   dx, w, dy, workSpace, workSpaceSize, solution_id);
}

// ------------------------------------------------------------------------- backward weights

extern "C" miopenStatus_t miopenConvolutionBackwardWeightsGetSolutionCount(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, size_t* solutionCount) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, xDesc, convDesc, dwDesc, solutionCount);
  return solution_count(__func__, handle,
                        {ConvDirection::BackwardWeights, xDesc, dwDesc, convDesc, dyDesc},
                        solutionCount);
}

extern "C" miopenStatus_t miopenConvolutionBackwardWeightsGetSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, const size_t maxSolutionCount, size_t* solutionCount,
    miopenConvSolution_t* solutions) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, xDesc, convDesc, dwDesc, maxSolutionCount,
                 solutionCount, solutions);
  return get_solutions(__func__, handle,
                       {ConvDirection::BackwardWeights, xDesc, dwDesc, convDesc, dyDesc},
                       maxSolutionCount, solutionCount, solutions);
}

extern "C" miopenStatus_t miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, const uint64_t solution_id, size_t* workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, xDesc, convDesc, dwDesc, solution_id,
                 workSpaceSize);
  return solution_workspace(__func__, handle,
                            {ConvDirection::BackwardWeights, xDesc, dwDesc, convDesc, dyDesc},
                            solution_id, workSpaceSize);
}

extern "C" miopenStatus_t miopenConvolutionBackwardWeightsCompileSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, const uint64_t solution_id) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, xDesc, convDesc, dwDesc, solution_id);
  return compile_solution(__func__, handle,
                          {ConvDirection::BackwardWeights, xDesc, dwDesc, convDesc, dyDesc},
                          solution_id);
}

extern "C" miopenStatus_t miopenConvolutionBackwardWeightsImmediate(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dwDesc, void* dw,
    void* workSpace, size_t workSpaceSize, const uint64_t solution_id) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, dy, xDesc, x, convDesc, dwDesc, dw, workSpace,
                 workSpaceSize, solution_id);
  return immediate(__func__, handle,
                   {ConvDirection::BackwardWeights, xDesc, dwDesc, convDesc, dyDesc}, x, dw, dy,
                   workSpace, workSpaceSize, solution_id);
}
