// C API: activation (descriptor, forward, backward). The shims resolve the opaque arguments,
// build the ActivationProblem (which validates them), log MIOpen's LogCmdActivation line and run
// the problem through the front-end (activation/activation_ops.hpp). Semantics beyond MIOpen's:
// bfloat16 data (MIOpen: NotImplemented) and alpha/beta other than 1/0 (MIOpen throws "Only
// alpha=1 and beta=0 is supported"), both documented in docs/api-status.md.
#include <miopen/miopen.h>

#include "activation/activation_ops.hpp"
#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/conv_call.hpp"  // read_scale
#include "api/enum_args.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

void require(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
}

void log_activation_command(const Config& cfg, const ActivationProblem& p) {
  if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdActivation", p.key());
}

}  // namespace

extern "C" miopenStatus_t miopenCreateActivationDescriptor(
    miopenActivationDescriptor_t* activDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, activDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(activDesc, "activDesc");  // checked before allocating
    out = new ActivationObject();
  });
}

extern "C" miopenStatus_t miopenSetActivationDescriptor(
    const miopenActivationDescriptor_t activDesc, miopenActivationMode_t mode, double activAlpha,
    double activBeta, double activGamma) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, activDesc, mode, activAlpha, activBeta, activGamma);
  return guard(cfg, __func__, [&] {
    auto& d = deref(activDesc);
    d.mode = checked(mode);
    d.alpha = activAlpha;
    d.beta = activBeta;
    d.gamma = activGamma;
  });
}

extern "C" miopenStatus_t miopenGetActivationDescriptor(
    const miopenActivationDescriptor_t activDesc, miopenActivationMode_t* mode, double* activAlpha,
    double* activBeta, double* activGamma) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, activDesc, mode, activAlpha, activBeta, activGamma);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(activDesc);
    deref_out(mode, "mode") = d.mode;
    deref_out(activAlpha, "activAlpha") = d.alpha;
    deref_out(activBeta, "activBeta") = d.beta;
    deref_out(activGamma, "activGamma") = d.gamma;
  });
}

extern "C" miopenStatus_t miopenDestroyActivationDescriptor(
    miopenActivationDescriptor_t activDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, activDesc);
  return guard(cfg, __func__, [&] {
    deref(activDesc);
    delete static_cast<ActivationObject*>(activDesc);
  });
}

extern "C" miopenStatus_t miopenActivationForward(miopenHandle_t handle,
                                                  const miopenActivationDescriptor_t activDesc,
                                                  const void* alpha,
                                                  const miopenTensorDescriptor_t xDesc,
                                                  const void* x, const void* beta,
                                                  const miopenTensorDescriptor_t yDesc, void* y) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, activDesc, alpha, xDesc, x, beta, yDesc, y);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    ActivDescriptors d;
    d.x = &deref_set(xDesc, "xDesc");
    d.y = &deref_set(yDesc, "yDesc");
    const ActivationProblem p(ActivDirection::Forward, deref(activDesc), d);
    log_activation_command(cfg, p);
    ActivationBuffers b;
    b.alpha = read_scale(alpha, "alpha");
    b.beta = read_scale(beta, "beta");
    require(x, "x");
    require(y, "y");
    b.x = x;
    b.y = y;
    activation_run(h, p, b);
  });
}

extern "C" miopenStatus_t miopenActivationBackward(
    miopenHandle_t handle, const miopenActivationDescriptor_t activDesc, const void* alpha,
    const miopenTensorDescriptor_t yDesc, const void* y, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t xDesc, const void* x, const void* beta,
    const miopenTensorDescriptor_t dxDesc, void* dx) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, activDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    ActivDescriptors d;
    d.y = &deref_set(yDesc, "yDesc");
    d.dy = &deref_set(dyDesc, "dyDesc");
    d.x = &deref_set(xDesc, "xDesc");
    d.dx = &deref_set(dxDesc, "dxDesc");
    const ActivationProblem p(ActivDirection::Backward, deref(activDesc), d);
    log_activation_command(cfg, p);
    ActivationBuffers b;
    b.alpha = read_scale(alpha, "alpha");
    b.beta = read_scale(beta, "beta");
    require(y, "y");
    require(dy, "dy");
    require(x, "x");
    require(dx, "dx");
    b.x = x;
    b.y = const_cast<void*>(y);  // read only in backward
    b.dy = dy;
    b.dx = dx;
    activation_run(h, p, b);
  });
}
