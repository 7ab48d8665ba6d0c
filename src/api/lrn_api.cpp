// C API: local response normalization (the descriptor, the workspace size, forward and
// backward). The shims resolve the opaque arguments, build the LrnProblem (which validates the
// call), log MIOpen's LogCmdLRN line and run the problem through the front-end
// (lrn/lrn_ops.hpp). As MIOpen's: alpha and beta are not read (the output is overwritten, and a
// null alpha / beta is accepted), the workspace of a forward call with do_backward receives the
// scale backward reads, and miopenLRNGetWorkSpaceSize is n * (n stride) * sizeof(float) of
// yDesc whatever its type.
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/enum_args.hpp"
#include "lrn/lrn_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

void require(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
}

}  // namespace

extern "C" miopenStatus_t miopenCreateLRNDescriptor(miopenLRNDescriptor_t* lrnDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, lrnDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(lrnDesc, "lrnDesc");  // checked before allocating
    out = new LrnObject();
  });
}

extern "C" miopenStatus_t miopenSetLRNDescriptor(const miopenLRNDescriptor_t lrnDesc,
                                                 miopenLRNMode_t mode, unsigned int lrnN,
                                                 double lrnAlpha, double lrnBeta, double lrnK) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, lrnDesc, mode, lrnN, lrnAlpha, lrnBeta, lrnK);
  return guard(cfg, __func__, [&] {
    auto& d = deref(lrnDesc);
    // lrnN 0 and K 0 are stored as MIOpen does; the compute calls reject them.
    d.params.mode = checked(mode);
    d.params.n = lrnN;
    d.params.alpha = lrnAlpha;
    d.params.beta = lrnBeta;
    d.params.k = lrnK;
    d.set = true;
  });
}

extern "C" miopenStatus_t miopenGetLRNDescriptor(const miopenLRNDescriptor_t lrnDesc,
                                                 miopenLRNMode_t* mode, unsigned int* lrnN,
                                                 double* lrnAlpha, double* lrnBeta, double* lrnK) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, lrnDesc, mode, lrnN, lrnAlpha, lrnBeta, lrnK);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(lrnDesc);
    deref_out(mode, "mode") = static_cast<miopenLRNMode_t>(d.params.mode);
    deref_out(lrnN, "lrnN") = d.params.n;
    deref_out(lrnAlpha, "lrnAlpha") = d.params.alpha;
    deref_out(lrnBeta, "lrnBeta") = d.params.beta;
    deref_out(lrnK, "lrnK") = d.params.k;
  });
}

extern "C" miopenStatus_t miopenLRNGetWorkSpaceSize(const miopenTensorDescriptor_t yDesc,
                                                    size_t* workSpaceSize) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, yDesc, workSpaceSize);
  return guard(cfg, __func__, [&] {
    const TensorDescriptor& y = deref_set(yDesc, "yDesc");
    deref_out(workSpaceSize, "workSpaceSize") = LrnProblem::workspace_size(y);
  });
}

extern "C" miopenStatus_t miopenLRNForward(miopenHandle_t handle,
                                           const miopenLRNDescriptor_t lrnDesc, const void* alpha,
                                           const miopenTensorDescriptor_t xDesc, const void* x,
                                           const void* beta, const miopenTensorDescriptor_t yDesc,
                                           void* y, bool do_backward, void* workSpace) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, lrnDesc, alpha, xDesc, x, beta, yDesc, y, do_backward, workSpace);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    const LrnDesc& desc = deref(lrnDesc);
    LrnDescriptors d;
    d.x = &deref_set(xDesc, "xDesc");
    d.y = &deref_set(yDesc, "yDesc");
    const LrnProblem p(LrnDirection::Forward, desc.params, d, do_backward);
    if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdLRN", p.key());
    require(x, "x");
    require(y, "y");
    if (do_backward) require(workSpace, "workSpace (do_backward keeps the scale there)");
    LrnBuffers buf;
    buf.x = x;
    buf.y = y;
    buf.workspace = do_backward ? workSpace : nullptr;
    lrn_run(h, p, buf);
  });
}

extern "C" miopenStatus_t miopenLRNBackward(miopenHandle_t handle,
                                            const miopenLRNDescriptor_t lrnDesc, const void* alpha,
                                            const miopenTensorDescriptor_t yDesc, const void* y,
                                            const miopenTensorDescriptor_t dyDesc, const void* dy,
                                            const miopenTensorDescriptor_t xDesc, const void* x,
                                            const void* beta, const miopenTensorDescriptor_t dxDesc,
                                            void* dx, const void* workSpace) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, lrnDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx,
                 workSpace);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    const LrnDesc& desc = deref(lrnDesc);
    LrnDescriptors d;
    d.y = &deref_set(yDesc, "yDesc");
    d.dy = &deref_set(dyDesc, "dyDesc");
    d.x = &deref_set(xDesc, "xDesc");
    d.dx = &deref_set(dxDesc, "dxDesc");
    const LrnProblem p(LrnDirection::Backward, desc.params, d);
    if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdLRN", p.key());
    require(y, "y");
    require(dy, "dy");
    require(x, "x");
    require(dx, "dx");
    require(workSpace, "workSpace (the scale miopenLRNForward kept with do_backward)");
    LrnBuffers buf;
    buf.x = x;
    buf.y = const_cast<void*>(y);  // read only in backward
    buf.dy = dy;
    buf.dx = dx;
    buf.workspace = const_cast<void*>(workSpace);  // read only in backward
    lrn_run(h, p, buf);
  });
}

extern "C" miopenStatus_t miopenDestroyLRNDescriptor(miopenLRNDescriptor_t lrnDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, lrnDesc);
  return guard(cfg, __func__, [&] {
    auto& o = deref_object<LrnObject, ObjectTag::Lrn>(lrnDesc, "lrnDesc");
    delete &o;
  });
}
