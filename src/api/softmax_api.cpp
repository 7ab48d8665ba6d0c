// C API: softmax (legacy and _V2 forward / backward, and the problem API's descriptor). The
// shims resolve the opaque arguments, read alpha / beta as floats (MIOpen reads them so for every
// data type), build the SoftmaxProblem (which validates the call), log MIOpen's LogCmdSoftmax
// line and run the problem through the front-end (softmax/softmax_ops.hpp). The legacy calls
// are ACCURATE in CHANNEL mode, as MIOpen's. Beyond MIOpen: bfloat16 data (MIOpen returns
// NotImplemented), documented in docs/api-status.md.
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/conv_call.hpp"  // read_scale
#include "api/enum_args.hpp"
#include "softmax/softmax_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

void require(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
}

void forward(miopenHandle_t handle, const void* alpha, miopenTensorDescriptor_t xDesc,
             const void* x, const void* beta, miopenTensorDescriptor_t yDesc, void* y,
             const miopenSoftmaxAlgorithm_t& algorithm, const miopenSoftmaxMode_t& mode) {
  const Config& cfg = config_of(handle);
  Handle& h = deref(handle);
  SoftmaxDescriptors d;
  d.x = &deref_set(xDesc, "xDesc");
  d.y = &deref_set(yDesc, "yDesc");
  const float a = read_scale(alpha, "alpha"), b = read_scale(beta, "beta");
  const SoftmaxProblem p(SoftmaxDirection::Forward, checked(algorithm), checked(mode), d, a, b);
  if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdSoftmax", p.key());
  require(x, "x");
  require(y, "y");
  SoftmaxBuffers buf;
  buf.x = x;
  buf.y = y;
  softmax_run(h, p, buf);
}

void backward(miopenHandle_t handle, const void* alpha, miopenTensorDescriptor_t yDesc,
              const void* y, miopenTensorDescriptor_t dyDesc, const void* dy, const void* beta,
              miopenTensorDescriptor_t dxDesc, void* dx, const miopenSoftmaxAlgorithm_t& algorithm,
              const miopenSoftmaxMode_t& mode) {
  const Config& cfg = config_of(handle);
  Handle& h = deref(handle);
  SoftmaxDescriptors d;
  d.y = &deref_set(yDesc, "yDesc");
  d.dy = &deref_set(dyDesc, "dyDesc");
  d.dx = &deref_set(dxDesc, "dxDesc");
  const float a = read_scale(alpha, "alpha"), b = read_scale(beta, "beta");
  const SoftmaxProblem p(SoftmaxDirection::Backward, checked(algorithm), checked(mode), d, a, b);
  if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdSoftmax", p.key());
  require(y, "y");
  require(dy, "dy");
  require(dx, "dx");
  SoftmaxBuffers buf;
  buf.y = const_cast<void*>(y);  // read only in backward
  buf.dy = dy;
  buf.dx = dx;
  softmax_run(h, p, buf);
}

}  // namespace

extern "C" miopenStatus_t miopenSoftmaxForward(miopenHandle_t handle, const void* alpha,
                                               const miopenTensorDescriptor_t xDesc, const void* x,
                                               const void* beta,
                                               const miopenTensorDescriptor_t yDesc, void* y) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha, xDesc, x, beta, yDesc, y);
  return guard(cfg, __func__, [&] {
    forward(handle, alpha, xDesc, x, beta, yDesc, y, MIOPEN_SOFTMAX_ACCURATE,
            MIOPEN_SOFTMAX_MODE_CHANNEL);
  });
}

extern "C" miopenStatus_t miopenSoftmaxBackward(miopenHandle_t handle, const void* alpha,
                                                const miopenTensorDescriptor_t yDesc, const void* y,
                                                const miopenTensorDescriptor_t dyDesc,
                                                const void* dy, const void* beta,
                                                const miopenTensorDescriptor_t dxDesc, void* dx) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx);
  return guard(cfg, __func__, [&] {
    backward(handle, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx, MIOPEN_SOFTMAX_ACCURATE,
             MIOPEN_SOFTMAX_MODE_CHANNEL);
  });
}

extern "C" miopenStatus_t miopenSoftmaxForward_V2(miopenHandle_t handle, const void* alpha,
                                                  const miopenTensorDescriptor_t xDesc,
                                                  const void* x, const void* beta,
                                                  const miopenTensorDescriptor_t yDesc, void* y,
                                                  miopenSoftmaxAlgorithm_t algorithm,
                                                  miopenSoftmaxMode_t mode) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha, xDesc, x, beta, yDesc, y, algorithm, mode);
  return guard(cfg, __func__,
               [&] { forward(handle, alpha, xDesc, x, beta, yDesc, y, algorithm, mode); });
}

extern "C" miopenStatus_t miopenSoftmaxBackward_V2(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t yDesc, const void* y,
    const miopenTensorDescriptor_t dyDesc, const void* dy, const void* beta,
    const miopenTensorDescriptor_t dxDesc, void* dx, miopenSoftmaxAlgorithm_t algorithm,
    miopenSoftmaxMode_t mode) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx, algorithm, mode);
  return guard(cfg, __func__, [&] {
    backward(handle, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx, algorithm, mode);
  });
}

extern "C" miopenStatus_t miopenCreateSoftmaxDescriptor(miopenSoftmaxDescriptor_t* softmaxDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, softmaxDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(softmaxDesc, "softmaxDesc");  // checked before allocating
    out = new SoftmaxObject();
  });
}

extern "C" miopenStatus_t miopenSetSoftmaxDescriptor(miopenSoftmaxDescriptor_t softmaxDesc,
                                                     float alpha, float beta,
                                                     miopenSoftmaxAlgorithm_t algorithm,
                                                     miopenSoftmaxMode_t mode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, softmaxDesc, alpha, beta, algorithm, mode);
  return guard(cfg, __func__, [&] {
    auto& d = deref(softmaxDesc);
    d.algorithm = checked(algorithm);
    d.mode = checked(mode);
    d.alpha = alpha;
    d.beta = beta;
  });
}

extern "C" miopenStatus_t miopenGetSoftmaxDescriptor(const miopenSoftmaxDescriptor_t softmaxDesc,
                                                     float* alpha, float* beta,
                                                     miopenSoftmaxAlgorithm_t* algorithm,
                                                     miopenSoftmaxMode_t* mode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, softmaxDesc, alpha, beta, algorithm, mode);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(softmaxDesc);
    deref_out(alpha, "alpha") = d.alpha;
    deref_out(beta, "beta") = d.beta;
    deref_out(algorithm, "algorithm") = d.algorithm;
    deref_out(mode, "mode") = d.mode;
  });
}
