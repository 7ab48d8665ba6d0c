// C API: activation descriptors. The descriptor calls work; ActivationForward/Backward are not
// part of any planned issue yet and return NotImplemented.
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/not_implemented.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

constexpr uint32_t kActivationTag = 0x414e4131u;

struct ActivationObject : miopenActivationDescriptor {
  ~ActivationObject() { tag = 0; }
  uint32_t tag = kActivationTag;
  miopenActivationMode_t mode = miopenActivationPASTHRU;
  double alpha = 0.0, beta = 0.0, gamma = 0.0;
};

ActivationObject& deref_activation(miopenActivationDescriptor_t d) {
  ANYDNN_CHECK_BADPARM(d != nullptr, "activDesc is a null pointer");
  auto* o = static_cast<ActivationObject*>(d);
  ANYDNN_CHECK_BADPARM(o->tag == kActivationTag,
                       "activDesc does not point to a live activation descriptor");
  return *o;
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
    auto& o = deref_activation(activDesc);
    ANYDNN_CHECK_BADPARM(mode >= miopenActivationPASTHRU && mode <= miopenActivationELU,
                         "invalid activation mode " << static_cast<int>(mode));
    o.mode = mode;
    o.alpha = activAlpha;
    o.beta = activBeta;
    o.gamma = activGamma;
  });
}

extern "C" miopenStatus_t miopenGetActivationDescriptor(
    const miopenActivationDescriptor_t activDesc, miopenActivationMode_t* mode, double* activAlpha,
    double* activBeta, double* activGamma) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, activDesc, mode, activAlpha, activBeta, activGamma);
  return guard(cfg, __func__, [&] {
    const auto& o = deref_activation(activDesc);
    deref_out(mode, "mode") = o.mode;
    deref_out(activAlpha, "activAlpha") = o.alpha;
    deref_out(activBeta, "activBeta") = o.beta;
    deref_out(activGamma, "activGamma") = o.gamma;
  });
}

extern "C" miopenStatus_t miopenDestroyActivationDescriptor(
    miopenActivationDescriptor_t activDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, activDesc);
  return guard(cfg, __func__, [&] {
    deref_activation(activDesc);
    delete static_cast<ActivationObject*>(activDesc);
  });
}

extern "C" miopenStatus_t miopenActivationForward(miopenHandle_t handle,
                                                  const miopenActivationDescriptor_t, const void*,
                                                  const miopenTensorDescriptor_t, const void*,
                                                  const void*, const miopenTensorDescriptor_t,
                                                  void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "activation");
}

extern "C" miopenStatus_t miopenActivationBackward(miopenHandle_t handle,
                                                   const miopenActivationDescriptor_t, const void*,
                                                   const miopenTensorDescriptor_t, const void*,
                                                   const miopenTensorDescriptor_t, const void*,
                                                   const miopenTensorDescriptor_t, const void*,
                                                   const void*, const miopenTensorDescriptor_t,
                                                   void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "activation");
}
