// C API: CTC loss (the descriptor, the workspace query and miopenCTCLoss). The shims resolve the
// opaque arguments, build the CtcLossProblem (which validates the call and copies the host
// label arrays), log MIOpen's miopenCTCLoss driver line and run the problem through the
// front-end (ctc/ctc_ops.hpp). Beyond MIOpen's checks (docs/api-status.md): null pointers, a
// workspace smaller than the query's size, non-positive input lengths and negative label
// lengths or ids are BadParm instead of out-of-bounds accesses; fp16 is NotImplemented.
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/enum_args.hpp"
#include "core/data_type.hpp"
#include "ctc/ctc_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

void require(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
}

CtcLossProblem make_problem(miopenTensorDescriptor_t probsDesc,
                            miopenTensorDescriptor_t gradientsDesc, const int* labels,
                            const int* labelLengths, const int* inputLengths,
                            const miopenCTCLossAlgo_t& algo,
                            miopenCTCLossDescriptor_t ctcLossDesc) {
  const CtcLossDesc& d = deref(ctcLossDesc);
  const TensorDescriptor& probs = deref_set(probsDesc, "probsDesc");
  const TensorDescriptor& grads = deref_set(gradientsDesc, "gradientsDesc");
  return CtcLossProblem(probs, grads, labels, labelLengths, inputLengths, checked(algo), d);
}

}  // namespace

extern "C" miopenStatus_t miopenCreateCTCLossDescriptor(miopenCTCLossDescriptor_t* ctcLossDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, ctcLossDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(ctcLossDesc, "ctcLossDesc");  // checked before allocating
    out = new CtcLossObject();
  });
}

extern "C" miopenStatus_t miopenDestroyCTCLossDescriptor(miopenCTCLossDescriptor_t ctcLossDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, ctcLossDesc);
  return guard(cfg, __func__, [&] {
    deref(ctcLossDesc);
    delete static_cast<CtcLossObject*>(ctcLossDesc);
  });
}

extern "C" miopenStatus_t miopenGetCTCLossDescriptor(miopenCTCLossDescriptor_t ctcLossDesc,
                                                     miopenDataType_t* dataType,
                                                     int* blank_label_id,
                                                     bool* apply_softmax_layer) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, ctcLossDesc);
  return guard(cfg, __func__, [&] {
    const CtcLossDesc& d = deref(ctcLossDesc);
    deref_out(dataType, "dataType") = d.data_type;
    // MIOpen skips the two optional outputs when they are null.
    if (blank_label_id != nullptr) *blank_label_id = d.blank_label_id;
    if (apply_softmax_layer != nullptr) *apply_softmax_layer = d.apply_softmax_layer;
  });
}

extern "C" miopenStatus_t miopenSetCTCLossDescriptor(miopenCTCLossDescriptor_t ctcLossDesc,
                                                     miopenDataType_t dataType,
                                                     const int blank_label_id,
                                                     bool apply_softmax_layer) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, ctcLossDesc, dataType, blank_label_id, apply_softmax_layer);
  return guard(cfg, __func__, [&] {
    CtcLossDesc& d = deref(ctcLossDesc);
    // MIOpen stores any type here (miopenCTCLoss reads the tensors' types); only values that are
    // no miopenDataType_t at all are refused.
    d.data_type = valid_data_type(dataType);
    d.blank_label_id = blank_label_id;
    d.apply_softmax_layer = apply_softmax_layer;
  });
}

extern "C" miopenStatus_t miopenGetCTCLossWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t probsDesc,
    const miopenTensorDescriptor_t gradientsDesc, const int* labels, const int* labelLengths,
    const int* inputLengths, miopenCTCLossAlgo_t algo, const miopenCTCLossDescriptor_t ctcLossDesc,
    size_t* workSpaceSize) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, probsDesc, gradientsDesc, labels, labelLengths, inputLengths, algo,
                 ctcLossDesc);
  return guard(cfg, __func__, [&] {
    deref(handle);
    size_t& out = deref_out(workSpaceSize, "workSpaceSize");
    out = make_problem(probsDesc, gradientsDesc, labels, labelLengths, inputLengths, algo,
                       ctcLossDesc)
              .workspace_size();
  });
}

extern "C" miopenStatus_t miopenCTCLoss(
    miopenHandle_t handle, const miopenTensorDescriptor_t probsDesc, const void* probs,
    const int* labels, const int* labelLengths, const int* inputLengths, void* losses,
    const miopenTensorDescriptor_t gradientsDesc, void* gradients, miopenCTCLossAlgo_t algo,
    const miopenCTCLossDescriptor_t ctcLossDesc, void* workSpace, size_t workSpaceSize) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, probsDesc, probs, labels, labelLengths, inputLengths, losses, gradientsDesc,
                 gradients, algo, ctcLossDesc, workSpace, workSpaceSize);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    const CtcLossProblem p = make_problem(probsDesc, gradientsDesc, labels, labelLengths,
                                          inputLengths, algo, ctcLossDesc);
    // MIOpen logs from inside miopenCTCLoss, so the bracket names the call.
    if (cfg.log_driver_commands) log_driver_command(cfg, "miopenCTCLoss", p.log_args());
    require(probs, "probs");
    require(losses, "losses");
    require(gradients, "gradients");
    require(workSpace, "workSpace");
    ANYDNN_CHECK_BADPARM(workSpaceSize >= p.workspace_size(),
                         "workSpaceSize " << workSpaceSize << " is smaller than the "
                                          << p.workspace_size()
                                          << " bytes miopenGetCTCLossWorkspaceSize returns");
    CtcLossBuffers b;
    b.probs = probs;
    b.losses = losses;
    b.gradients = gradients;
    b.workspace = workSpace;
    ctc_loss_run(h, p, b);
  });
}
