// C API: convolution workspace queries, Find and the legacy run calls, for all three directions.
// The three directions share one implementation each; the public functions only name the
// descriptors in the forward sense (x, w, y) for it.
#include <miopen/miopen.h>

#include <algorithm>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/conv_call.hpp"
#include "conv/conv_bias.hpp"
#include "conv/conv_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

miopenStatus_t workspace_size(const char* fn, miopenHandle_t handle, ConvDirection dir,
                              miopenTensorDescriptor_t x, miopenTensorDescriptor_t w,
                              miopenConvolutionDescriptor_t conv, miopenTensorDescriptor_t y,
                              size_t* workSpaceSize) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    size_t& out = deref_out(workSpaceSize, "workSpaceSize");
    out = conv_workspace_size(h, make_conv_problem(dir, x, w, conv, y));
  });
}

miopenStatus_t find(const char* fn, miopenHandle_t handle, ConvDirection dir,
                    miopenTensorDescriptor_t xDesc, const void* x, miopenTensorDescriptor_t wDesc,
                    const void* w, miopenConvolutionDescriptor_t conv,
                    miopenTensorDescriptor_t yDesc, const void* y, int requestAlgoCount,
                    int* returnedAlgoCount, miopenConvAlgoPerf_t* perfResults, void* workSpace,
                    size_t workSpaceSize, bool exhaustiveSearch) {
  const Config& cfg = config_of(handle);
  return guard(cfg, fn, [&] {
    Handle& h = deref(handle);
    const ConvProblem p = make_conv_problem(dir, xDesc, wDesc, conv, yDesc);
    log_conv_command(h.config(), "LogCmdFindConvolution", p);
    ANYDNN_CHECK_BADPARM(requestAlgoCount >= 1,
                         "requestAlgoCount = " << requestAlgoCount << " must be >= 1");
    int& returned = deref_out(returnedAlgoCount, "returnedAlgoCount");
    ANYDNN_CHECK_BADPARM(perfResults != nullptr, "perfResults is a null pointer");
    const ConvBuffers bufs = make_conv_buffers(p, x, w, y, workSpace, workSpaceSize);
    const auto results = conv_find(h, p, bufs, exhaustiveSearch);
    const int n = std::min(requestAlgoCount, static_cast<int>(results.size()));
    for (int i = 0; i < n; ++i) {
      miopenConvAlgoPerf_t perf{};
      // The three algorithm enums share their numeric values; write the direction's member.
      switch (dir) {
        case ConvDirection::Forward:
          perf.fwd_algo = static_cast<miopenConvFwdAlgorithm_t>(results[i].algorithm);
          break;
        case ConvDirection::BackwardData:
          perf.bwd_data_algo = static_cast<miopenConvBwdDataAlgorithm_t>(results[i].algorithm);
          break;
        case ConvDirection::BackwardWeights:
          perf.bwd_weights_algo =
              static_cast<miopenConvBwdWeightsAlgorithm_t>(results[i].algorithm);
          break;
      }
      perf.time = results[i].time_ms;
      perf.memory = results[i].workspace_size;
      perfResults[i] = perf;
    }
    returned = n;
  });
}

miopenStatus_t run(const char* fn, miopenHandle_t handle, ConvDirection dir, long long algo,
                   const void* alpha, miopenTensorDescriptor_t xDesc, const void* x,
                   miopenTensorDescriptor_t wDesc, const void* w,
                   miopenConvolutionDescriptor_t conv, const void* beta,
                   miopenTensorDescriptor_t yDesc, const void* y, void* workSpace,
                   size_t workSpaceSize) {
  const Config& cfg = config_of(handle);
  return guard(cfg, fn, [&] {
    Handle& h = deref(handle);
    const ConvProblem p = make_conv_problem(dir, xDesc, wDesc, conv, yDesc);
    log_conv_command(h.config(), "LogCmdConvolution", p);
    // General alpha/beta (MIOpen returns NotImplemented for 2-D unless 1/0; anydnn blends).
    const ConvScale scale{read_scale(alpha, "alpha"), read_scale(beta, "beta")};
    ANYDNN_CHECK_BADPARM(algo >= 0 && algo <= 5 && algo != 4, "invalid algorithm " << algo);
    const ConvBuffers bufs = make_conv_buffers(p, x, w, y, workSpace, workSpaceSize);
    conv_run_found(h, p, static_cast<miopenConvAlgorithm_t>(algo), bufs, scale);
  });
}

}  // namespace

extern "C" miopenStatus_t miopenConvolutionForwardGetWorkSpaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, size_t* workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, wDesc, xDesc, convDesc, yDesc, workSpaceSize);
  return workspace_size(__func__, handle, ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc,
                        workSpaceSize);
}

extern "C" miopenStatus_t miopenFindConvolutionForwardAlgorithm(
    miopenHandle_t handle, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t yDesc, void* y,
    const int requestAlgoCount, int* returnedAlgoCount, miopenConvAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSize, bool exhaustiveSearch) {
  ANYDNN_LOG_API(config_of(handle), handle, xDesc, x, wDesc, w, convDesc, yDesc, y,
                 requestAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSize,
                 exhaustiveSearch);
  return find(__func__, handle, ConvDirection::Forward, xDesc, x, wDesc, w, convDesc, yDesc, y,
              requestAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSize,
              exhaustiveSearch);
}

extern "C" miopenStatus_t miopenConvolutionForward(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, miopenConvFwdAlgorithm_t algo, const void* beta,
    const miopenTensorDescriptor_t yDesc, void* y, void* workSpace, size_t workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, alpha, xDesc, x, wDesc, w, convDesc, algo, beta, yDesc,
                 y, workSpace, workSpaceSize);
  return run(__func__, handle, ConvDirection::Forward, raw_enum(algo), alpha, xDesc, x, wDesc, w,
             convDesc, beta, yDesc, y, workSpace, workSpaceSize);
}

extern "C" miopenStatus_t miopenConvolutionBackwardDataGetWorkSpaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, size_t* workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, wDesc, convDesc, dxDesc, workSpaceSize);
  return workspace_size(__func__, handle, ConvDirection::BackwardData, dxDesc, wDesc, convDesc,
                        dyDesc, workSpaceSize);
}

extern "C" miopenStatus_t miopenFindConvolutionBackwardDataAlgorithm(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dxDesc, void* dx,
    const int requestAlgoCount, int* returnedAlgoCount, miopenConvAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSize, bool exhaustiveSearch) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, dy, wDesc, w, convDesc, dxDesc, dx,
                 requestAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSize,
                 exhaustiveSearch);
  return find(__func__, handle, ConvDirection::BackwardData, dxDesc, dx, wDesc, w, convDesc, dyDesc,
              dy, requestAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSize,
              exhaustiveSearch);
}

extern "C" miopenStatus_t miopenConvolutionBackwardData(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, miopenConvBwdDataAlgorithm_t algo,
    const void* beta, const miopenTensorDescriptor_t dxDesc, void* dx, void* workSpace,
    size_t workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, alpha, dyDesc, dy, wDesc, w, convDesc, algo, beta,
                 dxDesc, dx, workSpace, workSpaceSize);
  // miopenTransposeBwdDataAlgoGEMM (4) is MIOpen's deprecated alias of GEMM.
  const long long a = raw_enum(algo) == miopenTransposeBwdDataAlgoGEMM ? 0 : raw_enum(algo);
  return run(__func__, handle, ConvDirection::BackwardData, a, alpha, dxDesc, dx, wDesc, w,
             convDesc, beta, dyDesc, dy, workSpace, workSpaceSize);
}

extern "C" miopenStatus_t miopenConvolutionBackwardWeightsGetWorkSpaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, size_t* workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, xDesc, convDesc, dwDesc, workSpaceSize);
  return workspace_size(__func__, handle, ConvDirection::BackwardWeights, xDesc, dwDesc, convDesc,
                        dyDesc, workSpaceSize);
}

extern "C" miopenStatus_t miopenFindConvolutionBackwardWeightsAlgorithm(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dwDesc, void* dw,
    const int requestAlgoCount, int* returnedAlgoCount, miopenConvAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSize, bool exhaustiveSearch) {
  ANYDNN_LOG_API(config_of(handle), handle, dyDesc, dy, xDesc, x, convDesc, dwDesc, dw,
                 requestAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSize,
                 exhaustiveSearch);
  return find(__func__, handle, ConvDirection::BackwardWeights, xDesc, x, dwDesc, dw, convDesc,
              dyDesc, dy, requestAlgoCount, returnedAlgoCount, perfResults, workSpace,
              workSpaceSize, exhaustiveSearch);
}

extern "C" miopenStatus_t miopenConvolutionBackwardWeights(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, miopenConvBwdWeightsAlgorithm_t algo,
    const void* beta, const miopenTensorDescriptor_t dwDesc, void* dw, void* workSpace,
    size_t workSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, alpha, dyDesc, dy, xDesc, x, convDesc, algo, beta,
                 dwDesc, dw, workSpace, workSpaceSize);
  return run(__func__, handle, ConvDirection::BackwardWeights, raw_enum(algo), alpha, xDesc, x,
             dwDesc, dw, convDesc, beta, dyDesc, dy, workSpace, workSpaceSize);
}

extern "C" miopenStatus_t miopenConvolutionForwardBias(miopenHandle_t handle, const void* alpha,
                                                       const miopenTensorDescriptor_t bDesc,
                                                       const void* b, const void* beta,
                                                       const miopenTensorDescriptor_t yDesc,
                                                       void* y) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha, bDesc, b, beta, yDesc, y);
  return guard(cfg, __func__, [&] {
    conv_bias_forward(deref(handle), deref_set(bDesc, "bDesc"), b, deref_set(yDesc, "yDesc"), y,
                      read_scale(alpha, "alpha"), read_scale(beta, "beta"));
  });
}

extern "C" miopenStatus_t miopenConvolutionBackwardBias(miopenHandle_t handle, const void* alpha,
                                                        const miopenTensorDescriptor_t dyDesc,
                                                        const void* dy, const void* beta,
                                                        const miopenTensorDescriptor_t dbDesc,
                                                        void* db) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha, dyDesc, dy, beta, dbDesc, db);
  return guard(cfg, __func__, [&] {
    conv_bias_backward(deref(handle), deref_set(dyDesc, "dyDesc"), dy, deref_set(dbDesc, "dbDesc"),
                       db, read_scale(alpha, "alpha"), read_scale(beta, "beta"));
  });
}
