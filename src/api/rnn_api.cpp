// C API: RNN descriptors, MIOpen's packed weight layout (sizes, descriptors, per-layer get / set
// / offset) and the passes of the legacy per-step API: forward training and inference, backward
// data and weights. Each shim resolves the opaque handles, builds the call's RnnProblem through
// the front-end (rnn/rnn_ops.hpp), logs it and runs it. The sequence API: rnn_seq_api.cpp.
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/rnn_call.hpp"
#include "core/data_type.hpp"
#include "rnn/rnn_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

miopenStatus_t forward(const char* fn, miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc,
                       int seq_len, const miopenTensorDescriptor_t* xDesc, const void* x,
                       miopenTensorDescriptor_t hxDesc, const void* hx,
                       miopenTensorDescriptor_t cxDesc, const void* cx,
                       miopenTensorDescriptor_t wDesc, const void* w,
                       const miopenTensorDescriptor_t* yDesc, void* y,
                       miopenTensorDescriptor_t hyDesc, void* hy, miopenTensorDescriptor_t cyDesc,
                       void* cy, void* workspace, size_t ws_bytes, void* reserve,
                       size_t reserve_bytes, bool training) {
  const Config& cfg = config_of(handle);
  return guard(cfg, fn, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    RnnForwardCall c;
    c.x = step_descs(seq_len, xDesc, "xDesc");
    c.y = step_descs(seq_len, yDesc, "yDesc");
    c.w = &deref_set(wDesc, "wDesc");
    c.hx = &deref_set(hxDesc, "hxDesc");
    c.hy = &deref_set(hyDesc, "hyDesc");
    if (d.mode == miopenLSTM) {
      c.cx = &deref_set(cxDesc, "cxDesc");
      c.cy = &deref_set(cyDesc, "cyDesc");
    }
    c.xp = x;
    c.hxp = hx;
    c.cxp = cx;
    c.wp = w;
    c.yp = y;
    c.hyp = hy;
    c.cyp = cy;
    c.space = {workspace, ws_bytes, reserve, reserve_bytes};
    c.training = training;
    const RnnProblem p = rnn_problem(d, rnn_dropout(d), c);
    log_rnn_command(cfg, p);
    rnn_run(h, p, c);
  });
}

// The legacy shape from a call's per-step input descriptors.
RnnShape legacy_shape(const RnnDescriptor& d, int seq_len, const miopenTensorDescriptor_t* xDesc) {
  return rnn_legacy_shape(d, step_descs(seq_len, xDesc, "xDesc"));
}

}  // namespace

extern "C" miopenStatus_t miopenCreateRNNDescriptor(miopenRNNDescriptor_t* rnnDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(rnnDesc, "rnnDesc");
    out = new RnnObject();
  });
}

extern "C" miopenStatus_t miopenDestroyRNNDescriptor(miopenRNNDescriptor_t rnnDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc);
  return guard(cfg, __func__, [&] {
    deref(rnnDesc);  // checks the tag
    delete static_cast<RnnObject*>(rnnDesc);
  });
}

extern "C" miopenStatus_t miopenSetRNNDescriptor(miopenRNNDescriptor_t rnnDesc, const int hsize,
                                                 const int nlayers, miopenRNNInputMode_t inMode,
                                                 miopenRNNDirectionMode_t direction,
                                                 miopenRNNMode_t rnnMode,
                                                 miopenRNNBiasMode_t biasMode, miopenRNNAlgo_t algo,
                                                 miopenDataType_t dataType) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, hsize, nlayers, inMode, direction, rnnMode, biasMode, algo,
                 dataType);
  return guard(cfg, __func__, [&] {
    RnnDescriptor& d = deref(rnnDesc);
    RnnDescriptor n;
    n.set_values(hsize, nlayers, raw_enum(inMode), raw_enum(direction), raw_enum(rnnMode),
                 raw_enum(biasMode), raw_enum(algo), raw_enum(dataType));
    d = n;
  });
}

extern "C" miopenStatus_t miopenSetRNNDescriptor_V2(
    miopenRNNDescriptor_t rnnDesc, const int hsize, const int nlayers,
    miopenDropoutDescriptor_t dropoutDesc, miopenRNNInputMode_t inMode,
    miopenRNNDirectionMode_t direction, miopenRNNMode_t rnnMode, miopenRNNBiasMode_t biasMode,
    miopenRNNAlgo_t algo, miopenDataType_t dataType) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, hsize, nlayers, dropoutDesc, inMode, direction, rnnMode, biasMode,
                 algo, dataType);
  return guard(cfg, __func__, [&] {
    RnnDescriptor& d = deref(rnnDesc);
    deref(dropoutDesc);  // must be a live dropout descriptor
    RnnDescriptor n;
    n.set_values(hsize, nlayers, raw_enum(inMode), raw_enum(direction), raw_enum(rnnMode),
                 raw_enum(biasMode), raw_enum(algo), raw_enum(dataType));
    n.dropout = dropoutDesc;
    d = n;
  });
}

extern "C" miopenStatus_t miopenGetRNNDescriptor(
    miopenRNNDescriptor_t rnnDesc, miopenRNNMode_t* rnnMode, miopenRNNAlgo_t* algoMode,
    miopenRNNInputMode_t* inputMode, miopenRNNDirectionMode_t* dirMode,
    miopenRNNBiasMode_t* biasMode, int* hiddenSize, int* layer) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, rnnMode, algoMode, inputMode, dirMode, biasMode, hiddenSize, layer);
  return guard(cfg, __func__, [&] {
    const RnnDescriptor& d = set_rnn(rnnDesc);
    // Null outputs are skipped, as in MIOpen.
    if (rnnMode) *rnnMode = d.mode;
    if (algoMode) *algoMode = d.algo;
    if (inputMode) *inputMode = d.input_mode;
    if (dirMode) *dirMode = d.direction;
    if (biasMode) *biasMode = d.bias;
    if (hiddenSize) *hiddenSize = d.hidden;
    if (layer) *layer = d.layers;
  });
}

extern "C" miopenStatus_t miopenGetRNNDescriptor_V2(
    miopenRNNDescriptor_t rnnDesc, int* hiddenSize, int* layer,
    miopenDropoutDescriptor_t* dropoutDesc, miopenRNNInputMode_t* inputMode,
    miopenRNNDirectionMode_t* dirMode, miopenRNNMode_t* rnnMode, miopenRNNBiasMode_t* biasMode,
    miopenRNNAlgo_t* algoMode, miopenDataType_t* dataType) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, hiddenSize, layer, dropoutDesc, inputMode, dirMode, rnnMode,
                 biasMode, algoMode, dataType);
  return guard(cfg, __func__, [&] {
    const RnnDescriptor& d = set_rnn(rnnDesc);
    if (hiddenSize) *hiddenSize = d.hidden;
    if (layer) *layer = d.layers;
    if (dropoutDesc) *dropoutDesc = d.dropout;
    if (inputMode) *inputMode = d.input_mode;
    if (dirMode) *dirMode = d.direction;
    if (rnnMode) *rnnMode = d.mode;
    if (biasMode) *biasMode = d.bias;
    if (algoMode) *algoMode = d.algo;
    if (dataType) *dataType = d.type;
  });
}

extern "C" miopenStatus_t miopenSetRNNPaddingMode(miopenRNNDescriptor_t rnnDesc,
                                                  miopenRNNPaddingMode_t paddingMode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, paddingMode);
  return guard(cfg, __func__, [&] {
    RnnDescriptor& d = deref(rnnDesc);
    const long long v = raw_enum(paddingMode);
    ANYDNN_CHECK_BADPARM(v == miopenRNNIONotPadded || v == miopenRNNIOWithPadding,
                         "RNN padding mode must be miopenRNNIOWithPadding or miopenRNNIONotPadded");
    d.padding = static_cast<miopenRNNPaddingMode_t>(v);
  });
}

extern "C" miopenStatus_t miopenGetRNNPaddingMode(miopenRNNDescriptor_t rnnDesc,
                                                  miopenRNNPaddingMode_t* paddingMode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, paddingMode);
  return guard(cfg, __func__,
               [&] { deref_out(paddingMode, "paddingMode") = deref(rnnDesc).padding; });
}

extern "C" miopenStatus_t miopenGetRNNWorkspaceSize(miopenHandle_t handle,
                                                    const miopenRNNDescriptor_t rnnDesc,
                                                    const int sequenceLen,
                                                    const miopenTensorDescriptor_t* xDesc,
                                                    size_t* numBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, sequenceLen, xDesc, numBytes);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    size_t& out = deref_out(numBytes, "numBytes");
    const RnnDescriptor& d = set_rnn(rnnDesc);
    out = rnn_workspace_size(legacy_shape(d, sequenceLen, xDesc));
  });
}

extern "C" miopenStatus_t miopenGetRNNTrainingReserveSize(miopenHandle_t handle,
                                                          miopenRNNDescriptor_t rnnDesc,
                                                          const int sequenceLen,
                                                          const miopenTensorDescriptor_t* xDesc,
                                                          size_t* numBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, sequenceLen, xDesc, numBytes);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    size_t& out = deref_out(numBytes, "numBytes");
    const RnnDescriptor& d = set_rnn(rnnDesc);
    out = legacy_shape(d, sequenceLen, xDesc).reserve_bytes();
  });
}

extern "C" miopenStatus_t miopenGetRNNParamsSize(miopenHandle_t handle,
                                                 miopenRNNDescriptor_t rnnDesc,
                                                 miopenTensorDescriptor_t xDesc, size_t* numBytes,
                                                 miopenDataType_t dtype) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, xDesc, numBytes, dtype);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    size_t& out = deref_out(numBytes, "numBytes");
    const RnnDescriptor& d = set_rnn(rnnDesc);
    ANYDNN_CHECK_BADPARM(raw_enum(dtype) == d.type,
                         "dtype differs from the RNN descriptor's data type");
    out = d.param_count(rnn_input_size(deref_set(xDesc, "xDesc"))) * data_type_size(d.type);
  });
}

extern "C" miopenStatus_t miopenGetRNNParamsDescriptor(miopenHandle_t handle,
                                                       miopenRNNDescriptor_t rnnDesc,
                                                       miopenTensorDescriptor_t xDesc,
                                                       miopenTensorDescriptor_t wDesc,
                                                       miopenDataType_t dtype) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, xDesc, wDesc, dtype);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    ANYDNN_CHECK_BADPARM(raw_enum(dtype) == d.type,
                         "dtype differs from the RNN descriptor's data type");
    TensorDescriptor& w = deref(wDesc, "wDesc");
    const size_t cols = static_cast<size_t>(d.dirs()) * d.gates() * d.hidden;
    w = TensorDescriptor(d.type, {d.param_rows(rnn_input_size(deref_set(xDesc, "xDesc"))), cols});
  });
}

extern "C" miopenStatus_t miopenGetRNNInputTensorSize(miopenHandle_t handle,
                                                      miopenRNNDescriptor_t rnnDesc,
                                                      const int seqLen,
                                                      miopenTensorDescriptor_t* xDesc,
                                                      size_t* numBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, seqLen, xDesc, numBytes);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    size_t& out = deref_out(numBytes, "numBytes");
    const RnnDescriptor& d = set_rnn(rnnDesc);
    const RnnShape s = legacy_shape(d, seqLen, xDesc);
    out = s.rows * s.input * data_type_size(d.type);
  });
}

extern "C" miopenStatus_t miopenGetRNNHiddenTensorSize(miopenHandle_t handle,
                                                       miopenRNNDescriptor_t rnnDesc,
                                                       const int seqLen,
                                                       miopenTensorDescriptor_t* xDesc,
                                                       size_t* numBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, seqLen, xDesc, numBytes);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    size_t& out = deref_out(numBytes, "numBytes");
    const RnnDescriptor& d = set_rnn(rnnDesc);
    const RnnShape s = legacy_shape(d, seqLen, xDesc);
    out =
        static_cast<size_t>(d.layers) * d.dirs() * s.batch[0] * s.hidden() * data_type_size(d.type);
  });
}

extern "C" miopenStatus_t miopenGetRNNLayerParamSize(miopenHandle_t handle,
                                                     miopenRNNDescriptor_t rnnDesc, const int layer,
                                                     miopenTensorDescriptor_t xDesc,
                                                     const int paramID, size_t* numBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, layer, xDesc, paramID, numBytes);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    size_t& out = deref_out(numBytes, "numBytes");
    const RnnDescriptor& d = set_rnn(rnnDesc);
    size_t rows = 0, cols = 0;
    d.param_offset(layer, paramID, rnn_input_size(deref_set(xDesc, "xDesc")), &rows, &cols);
    out = rows * cols * data_type_size(d.type);
  });
}

extern "C" miopenStatus_t miopenGetRNNLayerBiasSize(miopenHandle_t handle,
                                                    miopenRNNDescriptor_t rnnDesc, const int layer,
                                                    const int biasID, size_t* numBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, layer, biasID, numBytes);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    size_t& out = deref_out(numBytes, "numBytes");
    const RnnDescriptor& d = set_rnn(rnnDesc);
    d.check_param_id(layer, biasID, true);
    out = static_cast<size_t>(d.hidden) * data_type_size(d.type);
  });
}

namespace {

// Descriptor and offset (elements into the packed weights) of one matrix or bias.
miopenStatus_t piece_offset(const Config& cfg, const char* fn, miopenRNNDescriptor_t rnnDesc,
                            int layer, miopenTensorDescriptor_t xDesc, int id,
                            miopenTensorDescriptor_t pieceDesc, size_t* offset, bool bias) {
  return guard(cfg, fn, [&] {
    const RnnDescriptor& d = set_rnn(rnnDesc);
    TensorDescriptor& out = deref(pieceDesc, bias ? "biasDesc" : "paramDesc");
    TensorDescriptor desc;
    const size_t off = rnn_layer_piece(d, layer, deref_set(xDesc, "xDesc"), id, bias, desc);
    out = desc;
    if (offset) *offset = off;
  });
}

miopenStatus_t get_piece(const char* fn, miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc,
                         int layer, miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc,
                         const void* w, int id, miopenTensorDescriptor_t pieceDesc, void* piece,
                         bool bias) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    TensorDescriptor& out = deref(pieceDesc, bias ? "biasDesc" : "paramDesc");
    const TensorDescriptor& x = deref_set(xDesc, "xDesc");
    rnn_get_piece(h, d, layer, x, deref_set(wDesc, "wDesc"), w, id, bias, out, piece);
  });
}

miopenStatus_t set_piece(const char* fn, miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc,
                         int layer, miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc,
                         void* w, int id, miopenTensorDescriptor_t pieceDesc, const void* piece,
                         bool bias) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    const TensorDescriptor& x = deref_set(xDesc, "xDesc");
    const TensorDescriptor& given = deref_set(pieceDesc, bias ? "biasDesc" : "paramDesc");
    rnn_set_piece(h, d, layer, x, deref_set(wDesc, "wDesc"), w, id, bias, given, piece);
  });
}

}  // namespace

extern "C" miopenStatus_t miopenGetRNNLayerParam(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int layer,
    miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc, const void* w,
    const int paramID, miopenTensorDescriptor_t paramDesc, void* layerParam) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, layer, xDesc, wDesc, w, paramID, paramDesc,
                 layerParam);
  return get_piece(__func__, handle, rnnDesc, layer, xDesc, wDesc, w, paramID, paramDesc,
                   layerParam, false);
}

extern "C" miopenStatus_t miopenGetRNNLayerBias(miopenHandle_t handle,
                                                miopenRNNDescriptor_t rnnDesc, const int layer,
                                                miopenTensorDescriptor_t xDesc,
                                                miopenTensorDescriptor_t wDesc, const void* w,
                                                const int biasID, miopenTensorDescriptor_t biasDesc,
                                                void* layerBias) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, layer, xDesc, wDesc, w, biasID, biasDesc,
                 layerBias);
  return get_piece(__func__, handle, rnnDesc, layer, xDesc, wDesc, w, biasID, biasDesc, layerBias,
                   true);
}

extern "C" miopenStatus_t miopenSetRNNLayerParam(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int layer,
    miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc, void* w, const int paramID,
    miopenTensorDescriptor_t paramDesc, const void* layerParam) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, layer, xDesc, wDesc, w, paramID, paramDesc,
                 layerParam);
  return set_piece(__func__, handle, rnnDesc, layer, xDesc, wDesc, w, paramID, paramDesc,
                   layerParam, false);
}

extern "C" miopenStatus_t miopenSetRNNLayerBias(miopenHandle_t handle,
                                                miopenRNNDescriptor_t rnnDesc, const int layer,
                                                miopenTensorDescriptor_t xDesc,
                                                miopenTensorDescriptor_t wDesc, void* w,
                                                const int biasID, miopenTensorDescriptor_t biasDesc,
                                                const void* layerBias) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, layer, xDesc, wDesc, w, biasID, biasDesc,
                 layerBias);
  return set_piece(__func__, handle, rnnDesc, layer, xDesc, wDesc, w, biasID, biasDesc, layerBias,
                   true);
}

extern "C" miopenStatus_t miopenGetRNNLayerParamOffset(
    miopenRNNDescriptor_t rnnDesc, const int layer, miopenTensorDescriptor_t xDesc,
    const int paramID, miopenTensorDescriptor_t paramDesc, size_t* layerParamOffset) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, layer, xDesc, paramID, paramDesc, layerParamOffset);
  return piece_offset(cfg, __func__, rnnDesc, layer, xDesc, paramID, paramDesc, layerParamOffset,
                      false);
}

extern "C" miopenStatus_t miopenGetRNNLayerBiasOffset(
    miopenRNNDescriptor_t rnnDesc, const int layer, miopenTensorDescriptor_t xDesc,
    const int biasID, miopenTensorDescriptor_t biasDesc, size_t* layerBiasOffset) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, rnnDesc, layer, xDesc, biasID, biasDesc, layerBiasOffset);
  return piece_offset(cfg, __func__, rnnDesc, layer, xDesc, biasID, biasDesc, layerBiasOffset,
                      true);
}

extern "C" miopenStatus_t miopenRNNForwardTraining(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* xDesc, const void* x, const miopenTensorDescriptor_t hxDesc,
    const void* hx, const miopenTensorDescriptor_t cxDesc, const void* cx,
    const miopenTensorDescriptor_t wDesc, const void* w, const miopenTensorDescriptor_t* yDesc,
    void* y, const miopenTensorDescriptor_t hyDesc, void* hy, const miopenTensorDescriptor_t cyDesc,
    void* cy, void* workSpace, size_t workSpaceNumBytes, void* reserveSpace,
    size_t reserveSpaceNumBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, sequenceLen, xDesc, x, hxDesc, hx, cxDesc, cx,
                 wDesc, w, yDesc, y, hyDesc, hy, cyDesc, cy, workSpace, workSpaceNumBytes,
                 reserveSpace, reserveSpaceNumBytes);
  return forward(__func__, handle, rnnDesc, sequenceLen, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w,
                 yDesc, y, hyDesc, hy, cyDesc, cy, workSpace, workSpaceNumBytes, reserveSpace,
                 reserveSpaceNumBytes, true);
}

extern "C" miopenStatus_t miopenRNNForwardInference(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* xDesc, const void* x, const miopenTensorDescriptor_t hxDesc,
    const void* hx, const miopenTensorDescriptor_t cxDesc, const void* cx,
    const miopenTensorDescriptor_t wDesc, const void* w, const miopenTensorDescriptor_t* yDesc,
    void* y, const miopenTensorDescriptor_t hyDesc, void* hy, const miopenTensorDescriptor_t cyDesc,
    void* cy, void* workSpace, size_t workSpaceNumBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, sequenceLen, xDesc, x, hxDesc, hx, cxDesc, cx,
                 wDesc, w, yDesc, y, hyDesc, hy, cyDesc, cy, workSpace, workSpaceNumBytes);
  return forward(__func__, handle, rnnDesc, sequenceLen, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc, w,
                 yDesc, y, hyDesc, hy, cyDesc, cy, workSpace, workSpaceNumBytes, nullptr, 0, false);
}

extern "C" miopenStatus_t miopenRNNBackwardData(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* yDesc, const void* y, const miopenTensorDescriptor_t* dyDesc,
    const void* dy, const miopenTensorDescriptor_t dhyDesc, const void* dhy,
    const miopenTensorDescriptor_t dcyDesc, const void* dcy, const miopenTensorDescriptor_t wDesc,
    const void* w, const miopenTensorDescriptor_t hxDesc, const void* hx,
    const miopenTensorDescriptor_t cxDesc, const void* cx, const miopenTensorDescriptor_t* dxDesc,
    void* dx, const miopenTensorDescriptor_t dhxDesc, void* dhx,
    const miopenTensorDescriptor_t dcxDesc, void* dcx, void* workSpace, size_t workSpaceNumBytes,
    void* reserveSpace, size_t reserveSpaceNumBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, sequenceLen, yDesc, y, dyDesc, dy, dhyDesc,
                 dhy, dcyDesc, dcy, wDesc, w, hxDesc, hx, cxDesc, cx, dxDesc, dx, dhxDesc, dhx,
                 dcxDesc, dcx, workSpace, workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes);
  return guard(config_of(handle), __func__, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    RnnBackwardDataCall c;
    c.dx = step_descs(sequenceLen, dxDesc, "dxDesc");
    c.y = step_descs(sequenceLen, yDesc, "yDesc");
    c.dy = step_descs(sequenceLen, dyDesc, "dyDesc");
    c.w = &deref_set(wDesc, "weight descriptor");
    c.hx = &deref_set(hxDesc, "hxDesc");
    c.dhy = &deref_set(dhyDesc, "dhyDesc");
    c.dhx = &deref_set(dhxDesc, "dhxDesc");
    if (d.mode == miopenLSTM) {
      c.cx = &deref_set(cxDesc, "cxDesc");
      c.dcy = &deref_set(dcyDesc, "dcyDesc");
      c.dcx = &deref_set(dcxDesc, "dcxDesc");
    }
    (void)y;  // the reserve holds everything the gradients need
    c.dyp = dy;
    c.dhyp = dhy;
    c.dcyp = dcy;
    c.wp = w;
    c.hxp = hx;
    c.cxp = cx;
    c.dxp = dx;
    c.dhxp = dhx;
    c.dcxp = dcx;
    c.space = {workSpace, workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes};
    const RnnProblem p = rnn_problem(d, rnn_dropout(d), c);
    log_rnn_command(h.config(), p);
    rnn_run(h, p, c);
  });
}

extern "C" miopenStatus_t miopenRNNBackwardWeights(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* xDesc, const void* x, const miopenTensorDescriptor_t hxDesc,
    const void* hx, const miopenTensorDescriptor_t* yDesc, const void* y,
    const miopenTensorDescriptor_t dwDesc, void* dw, void* workSpace, size_t workSpaceNumBytes,
    const void* reserveSpace, size_t reserveSpaceNumBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, sequenceLen, xDesc, x, hxDesc, hx, yDesc, y,
                 dwDesc, dw, workSpace, workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes);
  return guard(config_of(handle), __func__, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    RnnBackwardWeightsCall c;
    c.x = step_descs(sequenceLen, xDesc, "xDesc");
    c.y = step_descs(sequenceLen, yDesc, "yDesc");
    c.dw = &deref_set(dwDesc, "weight descriptor");
    c.hx = &deref_set(hxDesc, "hxDesc");
    (void)y;
    c.xp = x;
    c.hxp = hx;
    c.dwp = dw;
    // The reserve is only read.
    c.space = {workSpace, workSpaceNumBytes, const_cast<void*>(reserveSpace), reserveSpaceNumBytes};
    const RnnProblem p = rnn_problem(d, rnn_dropout(d), c);
    log_rnn_command(h.config(), p);
    rnn_run(h, p, c);
  });
}
