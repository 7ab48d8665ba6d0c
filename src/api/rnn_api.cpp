// C API: RNN descriptors, MIOpen's packed weight layout (sizes, descriptors, per-layer get / set
// / offset) and the passes of the legacy per-step API: forward training and inference, backward
// data and weights. The sequence-tensor API: rnn_seq_api.cpp; the LogCmdRNN line: rnn_call.cpp.
// Over the ~600-line guide because the RNN front-end (validation, shapes) still lives here;
// issue [one-path] moves it to src/rnn/ and leaves the shims.
#include <miopen/miopen.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/rnn_call.hpp"
#include "backend/backend.hpp"
#include "core/data_type.hpp"
#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_half_staging.hpp"
#include "rnn/rnn_shape.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

// The first `want` lengths of an RNN descriptor, which may carry trailing lengths of 1 beyond
// them: PyTorch's MIOpen path (aten/src/ATen/native/miopen/RNN_miopen.cpp) describes each step as
// [batch, features, 1] (packed input) or [batch, features, 1, 1, 1], and hx / cx as
// [layers*directions, batch, hidden, 1, 1]; MIOpen reads only the leading lengths and accepts
// them, so anydnn does too. Anything else past `want` is BadParm with the reason.
std::vector<size_t> leading_lens(const TensorDescriptor& t, size_t want, const std::string& name,
                                 const char* shape) {
  const auto& l = t.lens();
  ANYDNN_CHECK_BADPARM(l.size() >= want, name << " must be " << want << "-D " << shape
                                              << " (trailing lengths of 1 allowed), got "
                                              << l.size() << "-D");
  for (size_t i = want; i < l.size(); ++i)
    ANYDNN_CHECK_BADPARM(l[i] == 1, name << " must be " << shape
                                         << " (trailing lengths of 1 allowed), length " << i
                                         << " is " << l[i]);
  return {l.begin(), l.begin() + static_cast<std::ptrdiff_t>(want)};
}

// Input size I from a [batch, I] input descriptor.
size_t input_size(miopenTensorDescriptor_t x, const char* name = "xDesc") {
  return leading_lens(deref_set(x, name), 2, name, "[batch, input size]")[1];
}

// The per-step descriptor array of a legacy call: batch sizes and the input width.
RnnShape shape_of(const RnnDescriptor& d, int seq_len, const miopenTensorDescriptor_t* xDesc) {
  ANYDNN_CHECK_BADPARM(seq_len > 0, "sequenceLen = " << seq_len << " must be > 0");
  ANYDNN_CHECK_BADPARM(xDesc != nullptr, "xDesc is a null pointer");
  std::vector<size_t> batch;
  size_t input = 0;
  for (int t = 0; t < seq_len; ++t) {
    const TensorDescriptor& x = deref_set(xDesc[t], "xDesc[t]");
    const auto l = leading_lens(x, 2, "xDesc[" + std::to_string(t) + "]", "[batch, input size]");
    ANYDNN_CHECK_BADPARM(x.type() == d.type, "xDesc[" << t << "] and rnnDesc data types differ");
    if (t == 0) input = l[1];
    ANYDNN_CHECK_BADPARM(l[1] == input, "xDesc[" << t << "] input size " << l[1]
                                                 << " differs from step 0's " << input);
    batch.push_back(l[0]);
  }
  return make_rnn_shape(d, input, std::move(batch));
}

void check_weights(const RnnDescriptor& d, const RnnShape& s, miopenTensorDescriptor_t wDesc,
                   const char* name) {
  const TensorDescriptor& w = deref_set(wDesc, name);
  ANYDNN_CHECK_BADPARM(w.type() == d.type, name << " and rnnDesc data types differ");
  ANYDNN_CHECK_BADPARM(w.element_count() == d.param_count(s.input),
                       name << " holds " << w.element_count() << " elements, the RNN needs "
                            << d.param_count(s.input));
}

void check_state(const RnnDescriptor& d, const RnnShape& s, miopenTensorDescriptor_t desc,
                 const char* name) {
  const TensorDescriptor& t = deref_set(desc, name);
  const std::vector<size_t> want = {static_cast<size_t>(d.layers) * d.dirs(), s.batch[0],
                                    s.hidden()};
  const auto l = leading_lens(t, 3, name, "[layers*directions, batch, hidden]");
  ANYDNN_CHECK_BADPARM(l == want, name << " must be [layers*directions, batch, hidden] = ["
                                       << want[0] << ", " << want[1] << ", " << want[2] << "]");
}

void check_outputs(const RnnDescriptor& d, const RnnShape& s,
                   const miopenTensorDescriptor_t* yDesc) {
  ANYDNN_CHECK_BADPARM(yDesc != nullptr, "yDesc is a null pointer");
  for (size_t t = 0; t < s.steps(); ++t) {
    const TensorDescriptor& y = deref_set(yDesc[t], "yDesc[t]");
    const bool shaped = y.num_dims() >= 2 && std::all_of(y.lens().begin() + 2, y.lens().end(),
                                                         [](size_t v) { return v == 1; });
    ANYDNN_CHECK_BADPARM(shaped && y.lens()[0] == s.batch[t] && y.lens()[1] == s.out_width(),
                         "yDesc[" << t << "] must be [" << s.batch[t] << ", " << s.out_width()
                                  << "] (batch, directions*hidden)");
  }
}

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
    const RnnShape s = shape_of(d, seq_len, xDesc);
    check_outputs(d, s, yDesc);
    check_weights(d, s, wDesc, "wDesc");
    check_state(d, s, hxDesc, "hxDesc");
    check_state(d, s, hyDesc, "hyDesc");
    if (d.mode == miopenLSTM) {
      check_state(d, s, cxDesc, "cxDesc");
      check_state(d, s, cyDesc, "cyDesc");
    }
    ANYDNN_CHECK_BADPARM(x != nullptr && y != nullptr && w != nullptr,
                         "x, y and w must not be null pointers");
    ANYDNN_CHECK_BADPARM(workspace != nullptr && ws_bytes >= s.workspace_bytes(),
                         "workSpaceNumBytes = " << ws_bytes << " is below the "
                                                << s.workspace_bytes() << " bytes needed");
    if (training)
      ANYDNN_CHECK_BADPARM(reserve != nullptr && reserve_bytes >= s.reserve_bytes(),
                           "reserveSpaceNumBytes = " << reserve_bytes << " is below the "
                                                     << s.reserve_bytes() << " bytes needed");
    log_rnn_command(cfg, d, s, 1, !training);
    RnnForwardBuffers b;
    const bool lstm = d.mode == miopenLSTM;
    const size_t state = s.state_values();
    RnnHalfStaging io(s, workspace, h.backend());
    b.x = io.in(x, s.rows * s.input);
    b.hx = io.in(hx, state);
    b.cx = lstm ? io.in(cx, state) : nullptr;
    b.w = io.in(w, d.param_count(s.input));
    b.y = io.out(y, s.rows * s.out_width());
    b.hy = io.out(hy, state);
    b.cy = lstm ? io.out(cy, state) : nullptr;
    // Training keeps the activations in the reserve for the backward passes; inference uses
    // the same layout at the front of the workspace.
    attach_forward_space(d, s, training, workspace, reserve, b, h.backend());
    h.record_kernel_time(h.backend().run_timed([&] {
      h.backend().rnn_forward(s, b);
      io.finish();
    }));
  });
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
    out = shape_of(d, sequenceLen, xDesc).workspace_bytes();
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
    out = shape_of(d, sequenceLen, xDesc).reserve_bytes();
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
    ANYDNN_CHECK_BADPARM(dtype == d.type, "dtype differs from the RNN descriptor's data type");
    out = d.param_count(input_size(xDesc)) * data_type_size(dtype);
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
    ANYDNN_CHECK_BADPARM(dtype == d.type, "dtype differs from the RNN descriptor's data type");
    TensorDescriptor& w = deref(wDesc, "wDesc");
    const size_t cols = static_cast<size_t>(d.dirs()) * d.gates() * d.hidden;
    w = TensorDescriptor(dtype, {d.param_rows(input_size(xDesc)), cols});
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
    const RnnShape s = shape_of(d, seqLen, xDesc);
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
    const RnnShape s = shape_of(d, seqLen, xDesc);
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
    d.param_offset(layer, paramID, input_size(xDesc), &rows, &cols);
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

// Descriptor and element offset of a layer parameter (matrix) or bias (vector).
size_t layer_piece(const RnnDescriptor& d, int layer, miopenTensorDescriptor_t xDesc, int id,
                   bool bias, TensorDescriptor& piece) {
  const size_t I = input_size(xDesc);
  if (bias) {
    const size_t off = d.bias_offset(layer, id, I);
    piece = TensorDescriptor(d.type, {static_cast<size_t>(d.hidden)});
    return off;
  }
  size_t rows = 0, cols = 0;
  const size_t off = d.param_offset(layer, id, I, &rows, &cols);
  piece = TensorDescriptor(d.type, {rows, cols});
  return off;
}

// Descriptor and offset (elements into the packed weights) of one matrix or bias.
miopenStatus_t piece_offset(const Config& cfg, const char* fn, miopenRNNDescriptor_t rnnDesc,
                            int layer, miopenTensorDescriptor_t xDesc, int id,
                            miopenTensorDescriptor_t pieceDesc, size_t* offset, bool bias) {
  return guard(cfg, fn, [&] {
    const RnnDescriptor& d = set_rnn(rnnDesc);
    TensorDescriptor& out = deref(pieceDesc, bias ? "biasDesc" : "paramDesc");
    TensorDescriptor desc;
    const size_t off = layer_piece(d, layer, xDesc, id, bias, desc);
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
    TensorDescriptor desc;
    const size_t off = layer_piece(d, layer, xDesc, id, bias, desc);
    const TensorDescriptor& wd = deref_set(wDesc, "wDesc");
    ANYDNN_CHECK_BADPARM(wd.element_count() >= off + desc.element_count(),
                         "wDesc is too small for this RNN");
    out = desc;
    if (piece != nullptr) {
      ANYDNN_CHECK_BADPARM(w != nullptr, "w is a null pointer");
      const size_t ts = data_type_size(d.type);
      // Both are the caller's device buffers (host memory on the CPU backend).
      h.backend().copy(piece, static_cast<const char*>(w) + off * ts, desc.element_count() * ts,
                       CopyKind::DeviceToDevice);
    }
  });
}

miopenStatus_t set_piece(const char* fn, miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc,
                         int layer, miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc,
                         void* w, int id, miopenTensorDescriptor_t pieceDesc, const void* piece,
                         bool bias) {
  return guard(config_of(handle), fn, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    TensorDescriptor desc;
    const size_t off = layer_piece(d, layer, xDesc, id, bias, desc);
    const TensorDescriptor& given = deref_set(pieceDesc, bias ? "biasDesc" : "paramDesc");
    ANYDNN_CHECK_BADPARM(given.element_count() == desc.element_count() && given.is_packed(),
                         "mismatch between descriptors: the " << (bias ? "bias" : "parameter")
                                                              << " has " << desc.element_count()
                                                              << " elements");
    const TensorDescriptor& wd = deref_set(wDesc, "wDesc");
    ANYDNN_CHECK_BADPARM(wd.element_count() >= off + desc.element_count(),
                         "wDesc is too small for this RNN");
    ANYDNN_CHECK_BADPARM(w != nullptr && piece != nullptr, "w and the source must not be null");
    const size_t ts = data_type_size(d.type);
    h.backend().copy(static_cast<char*>(w) + off * ts, piece, desc.element_count() * ts,
                     CopyKind::DeviceToDevice);
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

namespace {

// Common checks of the backward calls; fills the buffers both read.
RnnShape backward_setup(const RnnDescriptor& d, int seq_len, const miopenTensorDescriptor_t* xDesc,
                        const miopenTensorDescriptor_t* yDesc, miopenTensorDescriptor_t wDesc,
                        miopenTensorDescriptor_t hxDesc, void* workspace, size_t ws_bytes,
                        const void* reserve, size_t reserve_bytes, RnnBackwardBuffers& b) {
  RnnShape s = shape_of(d, seq_len, xDesc);
  check_outputs(d, s, yDesc);
  check_weights(d, s, wDesc, "weight descriptor");
  check_state(d, s, hxDesc, "hxDesc");
  ANYDNN_CHECK_BADPARM(workspace != nullptr && ws_bytes >= s.workspace_bytes(),
                       "workSpaceNumBytes = " << ws_bytes << " is below the " << s.workspace_bytes()
                                              << " bytes needed");
  ANYDNN_CHECK_BADPARM(reserve != nullptr && reserve_bytes >= s.reserve_bytes(),
                       "reserveSpaceNumBytes = " << reserve_bytes << " is below the "
                                                 << s.reserve_bytes() << " bytes needed");
  attach_backward_space(d, s, workspace, reserve, b);
  return s;
}

}  // namespace

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
    RnnBackwardBuffers b;
    // dx's descriptors carry the input size, y's and dy's the output width.
    const RnnShape s = backward_setup(d, sequenceLen, dxDesc, yDesc, wDesc, hxDesc, workSpace,
                                      workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes, b);
    check_outputs(d, s, dyDesc);
    check_state(d, s, dhyDesc, "dhyDesc");
    check_state(d, s, dhxDesc, "dhxDesc");
    if (d.mode == miopenLSTM) {
      check_state(d, s, cxDesc, "cxDesc");
      check_state(d, s, dcyDesc, "dcyDesc");
      check_state(d, s, dcxDesc, "dcxDesc");
    }
    ANYDNN_CHECK_BADPARM(dy != nullptr && dx != nullptr && w != nullptr,
                         "dy, dx and w must not be null pointers");
    (void)y;  // the reserve holds everything the gradients need
    log_rnn_command(h.config(), d, s, 2, false);
    const bool lstm = d.mode == miopenLSTM;
    const size_t state = s.state_values();
    RnnHalfStaging io(s, workSpace, h.backend());
    b.w = io.in(w, d.param_count(s.input));
    b.hx = io.in(hx, state);
    b.cx = lstm ? io.in(cx, state) : nullptr;
    b.dy = io.in(dy, s.rows * s.out_width());
    b.dhy = io.in(dhy, state);
    b.dcy = lstm ? io.in(dcy, state) : nullptr;
    b.dx = io.out(dx, s.rows * s.input);
    b.dhx = io.out(dhx, state);
    b.dcx = lstm ? io.out(dcx, state) : nullptr;
    h.record_kernel_time(h.backend().run_timed([&] {
      h.backend().rnn_backward_data(s, b);
      io.finish();
    }));
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
    RnnBackwardBuffers b;
    const RnnShape s = backward_setup(d, sequenceLen, xDesc, yDesc, dwDesc, hxDesc, workSpace,
                                      workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes, b);
    ANYDNN_CHECK_BADPARM(x != nullptr && dw != nullptr, "x and dw must not be null pointers");
    (void)y;
    log_rnn_command(h.config(), d, s, 4, false);
    RnnHalfStaging io(s, workSpace, h.backend());
    b.x = io.in(x, s.rows * s.input);
    b.hx = io.in(hx, s.state_values());
    b.dw = io.out(dw, d.param_count(s.input));
    h.record_kernel_time(h.backend().run_timed([&] {
      h.backend().rnn_backward_weights(s, b);
      io.finish();
    }));
  });
}
