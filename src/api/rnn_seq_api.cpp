// C API: the RNN sequence API (sequence tensor descriptors, miopenRNNForward,
// miopenRNNBackwardSeqData, miopenRNNBackwardWeightsSeqTensor). Each pass resolves the opaque
// handles, builds the call's RnnProblem through the front-end (rnn/rnn_seq_ops.hpp, which packs
// the sequences and runs the legacy API's passes), logs it and runs it.
#include <miopen/miopen.h>

#include <algorithm>
#include <cstring>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/enum_args.hpp"
#include "api/rnn_call.hpp"
#include "core/float_types.hpp"
#include "rnn/rnn_seq_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

const SeqTensorDescriptor& set_seq(miopenSeqTensorDescriptor_t d, const char* name) {
  const SeqTensorDescriptor& s = deref(d, name);
  ANYDNN_CHECK_BADPARM(s.set, name << " has not been set");
  return s;
}

// Validates, logs and runs one pass.
void run_seq(Handle& h, const RnnDescriptor& d, RnnDirection direction, const RnnSeqCall& c) {
  const RnnProblem p = rnn_seq_problem(d, rnn_dropout(d), direction, c);
  log_rnn_command(h.config(), p);
  rnn_seq_run(h, p, c);
}

}  // namespace

extern "C" miopenStatus_t miopenCreateSeqTensorDescriptor(miopenSeqTensorDescriptor_t* tensorDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc);
  return guard(cfg, __func__, [&] { deref_out(tensorDesc, "tensorDesc") = new SeqTensorObject(); });
}

extern "C" miopenStatus_t miopenDestroySeqTensorDescriptor(miopenSeqTensorDescriptor_t tensorDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, tensorDesc);
  return guard(cfg, __func__, [&] {
    deref(tensorDesc, "tensorDesc");
    delete static_cast<SeqTensorObject*>(tensorDesc);
  });
}

extern "C" miopenStatus_t miopenSetRNNDataSeqTensorDescriptor(
    miopenSeqTensorDescriptor_t seqTensorDesc, miopenDataType_t dataType,
    miopenRNNBaseLayout_t layout, int maxSequenceLen, int batchSize, int vectorSize,
    const int* sequenceLenArray, void* paddingMarker) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, seqTensorDesc, dataType, layout, maxSequenceLen, batchSize, vectorSize,
                 sequenceLenArray, paddingMarker);
  return guard(cfg, __func__, [&] {
    SeqTensorDescriptor& d = deref(seqTensorDesc, "seqTensorDesc");
    SeqTensorDescriptor n;
    n.assign(raw_enum(dataType), raw_enum(layout), maxSequenceLen, batchSize, vectorSize,
             sequenceLenArray, paddingMarker);
    d = n;
  });
}

extern "C" miopenStatus_t miopenGetRNNDataSeqTensorDescriptor(
    miopenSeqTensorDescriptor_t seqTensorDesc, miopenDataType_t* dataType,
    miopenRNNBaseLayout_t* layout, int* maxSequenceLen, int* batchSize, int* vectorSize,
    int sequenceLenArrayLimit, int* sequenceLenArray, void* paddingMarker) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, seqTensorDesc, dataType, layout, maxSequenceLen, batchSize, vectorSize,
                 sequenceLenArrayLimit, sequenceLenArray, paddingMarker);
  return guard(cfg, __func__, [&] {
    const SeqTensorDescriptor& d = set_seq(seqTensorDesc, "seqTensorDesc");
    if (dataType) *dataType = d.type;
    if (layout) *layout = d.layout;
    if (maxSequenceLen) *maxSequenceLen = d.max_len;
    if (batchSize) *batchSize = d.batch;
    if (vectorSize) *vectorSize = d.vec;
    if (sequenceLenArray)
      for (int i = 0; i < std::min(sequenceLenArrayLimit, d.batch); ++i)
        sequenceLenArray[i] = d.lens[i];
    if (paddingMarker && d.has_marker) {
      if (d.type == miopenHalf) {
        const uint16_t h = float_to_half(d.marker);
        std::memcpy(paddingMarker, &h, sizeof h);
      } else {
        std::memcpy(paddingMarker, &d.marker, sizeof(float));
      }
    }
  });
}

extern "C" miopenStatus_t miopenGetRNNTempSpaceSizes(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, miopenSeqTensorDescriptor_t xDesc,
    miopenRNNFWDMode_t fwdMode, size_t* workSpaceSize, size_t* reserveSpaceSize) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, xDesc, fwdMode, workSpaceSize,
                 reserveSpaceSize);
  return guard(config_of(handle), __func__, [&] {
    deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    rnn_seq_temp_sizes(d, rnn_dropout(d), set_seq(xDesc, "xDesc"),
                       raw_enum(fwdMode) == miopenRNNTraining, workSpaceSize, reserveSpaceSize);
  });
}

extern "C" miopenStatus_t miopenRNNForward(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, miopenRNNFWDMode_t fwdMode,
    const miopenSeqTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t hDesc,
    const void* hx, void* hy, const miopenTensorDescriptor_t cDesc, const void* cx, void* cy,
    const miopenSeqTensorDescriptor_t yDesc, void* y, const void* w, size_t weightSpaceSize,
    void* workSpace, size_t workSpaceNumBytes, void* reserveSpace, size_t reserveSpaceNumBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, fwdMode, xDesc, x, hDesc, hx, hy, cDesc, cx,
                 cy, yDesc, y, w, weightSpaceSize, workSpace, workSpaceNumBytes, reserveSpace,
                 reserveSpaceNumBytes);
  return guard(config_of(handle), __func__, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    const miopenRNNFWDMode_t mode = checked(fwdMode);
    RnnSeqCall c;
    c.training = mode == miopenRNNTraining;
    c.x = &set_seq(xDesc, "xDesc");
    c.y = &set_seq(yDesc, "yDesc");
    c.h = &deref_set(hDesc, "hDesc");
    if (d.mode == miopenLSTM) c.c = &deref_set(cDesc, "cDesc");
    c.xp = x;
    c.hxp = hx;
    c.cxp = cx;
    c.wp = w;
    c.yp = y;
    c.hyp = hy;
    c.cyp = cy;
    c.weight_bytes = weightSpaceSize;
    c.space = {workSpace, workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes};
    run_seq(h, d, RnnDirection::Forward, c);
  });
}

extern "C" miopenStatus_t miopenRNNBackwardSeqData(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc,
    const miopenSeqTensorDescriptor_t yDesc, const void* y, const void* dy,
    const miopenTensorDescriptor_t hDesc, const void* hx, const void* dhy, void* dhx,
    const miopenTensorDescriptor_t cDesc, const void* cx, const void* dcy, void* dcx,
    const miopenSeqTensorDescriptor_t xDesc, void* dx, const void* w, size_t weightSpaceSize,
    void* workSpace, size_t workSpaceNumBytes, void* reserveSpace, size_t reserveSpaceNumBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, yDesc, y, dy, hDesc, hx, dhy, dhx, cDesc, cx,
                 dcy, dcx, xDesc, dx, w, weightSpaceSize, workSpace, workSpaceNumBytes,
                 reserveSpace, reserveSpaceNumBytes);
  return guard(config_of(handle), __func__, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    RnnSeqCall c;
    c.x = &set_seq(xDesc, "xDesc");
    c.y = &set_seq(yDesc, "yDesc");
    c.h = &deref_set(hDesc, "hDesc");
    if (d.mode == miopenLSTM) c.c = &deref_set(cDesc, "cDesc");
    (void)y;  // the reserve holds everything the gradients need
    c.dyp = dy;
    c.hxp = hx;
    c.cxp = cx;
    c.dhyp = dhy;
    c.dcyp = dcy;
    c.wp = w;
    c.dxp = dx;
    c.dhxp = dhx;
    c.dcxp = dcx;
    c.weight_bytes = weightSpaceSize;
    c.space = {workSpace, workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes};
    run_seq(h, d, RnnDirection::BackwardData, c);
  });
}

extern "C" miopenStatus_t miopenRNNBackwardWeightsSeqTensor(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc,
    const miopenSeqTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t hDesc,
    const void* hx, const miopenSeqTensorDescriptor_t yDesc, const void* y, void* dw,
    size_t weightSpaceSize, void* workSpace, size_t workSpaceNumBytes, const void* reserveSpace,
    size_t reserveSpaceNumBytes) {
  ANYDNN_LOG_API(config_of(handle), handle, rnnDesc, xDesc, x, hDesc, hx, yDesc, y, dw,
                 weightSpaceSize, workSpace, workSpaceNumBytes, reserveSpace, reserveSpaceNumBytes);
  return guard(config_of(handle), __func__, [&] {
    Handle& h = deref(handle);
    const RnnDescriptor& d = set_rnn(rnnDesc);
    RnnSeqCall c;
    c.x = &set_seq(xDesc, "xDesc");
    c.y = &set_seq(yDesc, "yDesc");
    c.h = &deref_set(hDesc, "hDesc");
    (void)y;
    c.xp = x;
    c.hxp = hx;
    c.dwp = dw;
    c.weight_bytes = weightSpaceSize;
    // The reserve is only read.
    c.space = {workSpace, workSpaceNumBytes, const_cast<void*>(reserveSpace), reserveSpaceNumBytes};
    run_seq(h, d, RnnDirection::BackwardWeights, c);
  });
}
