// C API: the RNN sequence API (sequence tensor descriptors, miopenRNNForward,
// miopenRNNBackwardSeqData, miopenRNNBackwardWeightsSeqTensor). Sequences may come in any order
// and layout; each call gathers them into the packed, length-sorted rows the legacy kernels run
// on (in a staging area after the legacy workspace), runs the same backend passes, and scatters
// the results back (padding positions get the padding marker, else 0).
#include <miopen/miopen.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/rnn_call.hpp"
#include "backend/backend.hpp"
#include "core/data_type.hpp"
#include "core/float_types.hpp"
#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_half_staging.hpp"
#include "rnn/rnn_shape.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

const SeqTensorDescriptor& set_seq(miopenSeqTensorDescriptor_t d, const char* name) {
  const SeqTensorDescriptor& s = deref(d, name);
  ANYDNN_CHECK_BADPARM(s.set, name << " has not been set");
  return s;
}

// The packed view of one call: sequences sorted by decreasing length (stable), batch per step,
// the legacy shape, and where the staging buffers start in the workspace.
struct SeqPlan {
  std::vector<int> order;  // sorted position -> sequence index (sequences of length > 0)
  RnnShape shape;
  size_t legacy_ws = 0;  // bytes
  size_t state = 0;      // floats of one [L*D, B_0, H] state buffer
  size_t staging_floats = 0;
};

// The call's LogCmdRNN line (base rnn_seq / rnn_seqfp16).
void log_seq_command(const Config& cfg, const RnnDescriptor& d, const SeqPlan& p,
                     const SeqTensorDescriptor& x, int forw, bool inference) {
  RnnSeqCommand c;
  c.batch = x.batch;
  c.max_len = x.max_len;
  c.layout = static_cast<int>(x.layout);
  c.lens = &x.lens;
  log_rnn_command(cfg, d, p.shape, forw, inference, &c);
}

SeqPlan plan(const RnnDescriptor& d, const SeqTensorDescriptor& x) {
  ANYDNN_CHECK_BADPARM(x.type == d.type, "xDesc and rnnDesc data types differ");
  SeqPlan p;
  std::vector<int> idx(static_cast<size_t>(x.batch));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return x.lens[a] > x.lens[b]; });
  for (int i : idx)
    if (x.lens[i] > 0) p.order.push_back(i);
  ANYDNN_CHECK_BADPARM(!p.order.empty(), "every sequence has length 0");
  std::vector<size_t> batch;
  for (int t = 0; t < x.lens[p.order[0]]; ++t) {
    size_t n = 0;
    for (int i : p.order)
      n += x.lens[i] > t ? 1 : 0;
    batch.push_back(n);
  }
  p.shape = make_rnn_shape(d, static_cast<size_t>(x.vec), std::move(batch));
  p.legacy_ws = (p.shape.workspace_bytes() + 63) / 64 * 64;
  p.state = p.shape.state_values();  // B_0 = the sequences of length > 0
  p.staging_floats = p.shape.rows * (p.shape.input + p.shape.out_width()) + 6 * p.state;
  return p;
}

struct Staging {
  float *x, *y, *s[6];
};

Staging staging(const SeqPlan& p, void* ws) {
  float* base = reinterpret_cast<float*>(static_cast<char*>(ws) + p.legacy_ws);
  Staging st;
  st.x = base;
  st.y = st.x + p.shape.rows * p.shape.input;
  float* s = st.y + p.shape.rows * p.shape.out_width();
  for (auto& e : st.s) {
    e = s;
    s += p.state;
  }
  return st;
}

// The caller's tensors hold fp32 or (rnnfp16) half values; the packed staging rows are fp32.
// Each function below describes its rows as one RowMoves group; the backend moves (and
// converts) every group of a phase at once (on CUDA: one offset table, one kernel per group).

// Sequence tensor -> packed rows (vec values per row).
RowMoves gather(const SeqTensorDescriptor& d, const SeqPlan& p, const void* src, float* rows) {
  const RnnShape& s = p.shape;
  RowMoves m{src, d.type == miopenHalf, rows, false, static_cast<size_t>(d.vec), {}};
  m.rows.reserve(s.rows);
  for (size_t t = 0; t < s.steps(); ++t)
    for (size_t i = 0; i < s.batch[t]; ++i)
      m.rows.emplace_back(d.offset(p.order[i], static_cast<int>(t)), (s.row_start[t] + i) * d.vec);
  return m;
}
// Packed rows -> sequence tensor; padding positions first get the marker (else 0).
RowMoves scatter(Backend& be, const SeqTensorDescriptor& d, const SeqPlan& p, const float* rows,
                 void* dst) {
  const bool half = d.type == miopenHalf;
  if (d.layout != miopenRNNDataSeqMajorNotPadded)
    be.fill(dst, d.element_space(), d.has_marker ? d.marker : 0.0f, half);
  const RnnShape& s = p.shape;
  RowMoves m{rows, false, dst, half, static_cast<size_t>(d.vec), {}};
  m.rows.reserve(s.rows);
  for (size_t t = 0; t < s.steps(); ++t)
    for (size_t i = 0; i < s.batch[t]; ++i)
      m.rows.emplace_back((s.row_start[t] + i) * d.vec, d.offset(p.order[i], static_cast<int>(t)));
  return m;
}

// [L*D, batch, H] in the caller's sequence order <-> [L*D, B_0, H] in sorted order.
RowMoves permute_in(const RnnDescriptor& d, const SeqPlan& p, int batch, const void* src,
                    float* dst) {
  const size_t H = d.hidden, B0 = p.order.size();
  RowMoves m{src, d.type == miopenHalf, dst, false, H, {}};
  for (size_t st = 0; st < static_cast<size_t>(d.layers) * d.dirs(); ++st)
    for (size_t i = 0; i < B0; ++i)
      m.rows.emplace_back((st * batch + p.order[i]) * H, (st * B0 + i) * H);
  return m;
}
// Sequences of length 0 keep `fallback` (their initial state / incoming gradient), or 0.
RowMoves permute_out(Backend& be, const RnnDescriptor& d, const SeqPlan& p, int batch,
                     const float* src, const void* fallback, void* dst) {
  const size_t H = d.hidden, B0 = p.order.size(), layers = static_cast<size_t>(d.layers) * d.dirs();
  const bool half = d.type == miopenHalf;
  const size_t esize = half ? 2 : 4, n = layers * batch * H;
  if (fallback)
    be.copy(dst, fallback, n * esize, CopyKind::DeviceToDevice);
  else
    be.fill_zero(dst, n * esize);  // +0.0 in both types
  RowMoves m{src, false, dst, half, H, {}};
  for (size_t st = 0; st < layers; ++st)
    for (size_t i = 0; i < B0; ++i)
      m.rows.emplace_back((st * B0 + i) * H, (st * batch + p.order[i]) * H);
  return m;
}

void check_state(const RnnDescriptor& d, const SeqTensorDescriptor& x, miopenTensorDescriptor_t h,
                 const char* name) {
  const TensorDescriptor& t = deref_set(h, name);
  const std::vector<size_t> want = {static_cast<size_t>(d.layers) * d.dirs(),
                                    static_cast<size_t>(x.batch), static_cast<size_t>(d.hidden)};
  ANYDNN_CHECK_BADPARM(t.lens() == want, name << " must be [layers*directions, batch, hidden]");
}

void check_y(const RnnDescriptor& d, const SeqTensorDescriptor& x, const SeqTensorDescriptor& y) {
  ANYDNN_CHECK_BADPARM(y.batch == x.batch && y.lens == x.lens && y.max_len == x.max_len &&
                           y.vec == d.dirs() * d.hidden && y.type == x.type,
                       "yDesc must have xDesc's sequences and directions*hidden values per step");
}

void check_sizes(const SeqPlan& p, const RnnDescriptor& d, size_t wbytes, size_t ws_bytes,
                 const void* ws, size_t rs_bytes, const void* rs, bool need_reserve) {
  const size_t wneed = d.param_count(p.shape.input) * data_type_size(d.type);
  ANYDNN_CHECK_BADPARM(wbytes >= wneed, "weightSpaceSize = " << wbytes << " is below the " << wneed
                                                             << " bytes of the weights");
  const size_t need = p.legacy_ws + p.staging_floats * sizeof(float);
  ANYDNN_CHECK_BADPARM(
      ws != nullptr && ws_bytes >= need,
      "workSpaceNumBytes = " << ws_bytes << " is below the " << need << " bytes needed");
  if (need_reserve)
    ANYDNN_CHECK_BADPARM(rs != nullptr && rs_bytes >= p.shape.reserve_bytes(),
                         "reserveSpaceNumBytes = " << rs_bytes << " is below the "
                                                   << p.shape.reserve_bytes() << " bytes needed");
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
    const SeqPlan p = plan(d, set_seq(xDesc, "xDesc"));
    const bool training = raw_enum(fwdMode) == miopenRNNTraining;
    if (workSpaceSize) *workSpaceSize = p.legacy_ws + p.staging_floats * sizeof(float);
    if (reserveSpaceSize) *reserveSpaceSize = training ? p.shape.reserve_bytes() : 0;
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
    const long long mode = raw_enum(fwdMode);
    ANYDNN_CHECK_BADPARM(mode == miopenRNNTraining || mode == miopenRNNInference,
                         "fwdMode " << mode << " is not a miopenRNNFWDMode_t");
    const bool training = mode == miopenRNNTraining;
    const SeqTensorDescriptor& xs = set_seq(xDesc, "xDesc");
    const SeqTensorDescriptor& ys = set_seq(yDesc, "yDesc");
    check_y(d, xs, ys);
    const SeqPlan p = plan(d, xs);
    check_state(d, xs, hDesc, "hDesc");
    const bool lstm = d.mode == miopenLSTM;
    if (lstm) check_state(d, xs, cDesc, "cDesc");
    ANYDNN_CHECK_BADPARM(x != nullptr && y != nullptr && w != nullptr,
                         "x, y and w must not be null pointers");
    check_sizes(p, d, weightSpaceSize, workSpaceNumBytes, workSpace, reserveSpaceNumBytes,
                reserveSpace, training);
    log_seq_command(h.config(), d, p, xs, 1, !training);
    Backend& be = h.backend();
    const Staging st = staging(p, workSpace);
    std::vector<RowMoves> in{gather(xs, p, x, st.x)};
    if (hx) in.push_back(permute_in(d, p, xs.batch, hx, st.s[0]));
    if (lstm && cx) in.push_back(permute_in(d, p, xs.batch, cx, st.s[1]));
    be.move_rows(in);
    RnnHalfStaging io(p.shape, workSpace, be);
    RnnForwardBuffers b;
    b.x = st.x;
    b.hx = hx ? st.s[0] : nullptr;
    b.cx = lstm && cx ? st.s[1] : nullptr;
    b.w = io.in(w, d.param_count(p.shape.input));
    b.y = st.y;
    b.hy = st.s[2];
    b.cy = lstm ? st.s[3] : nullptr;
    attach_forward_space(d, p.shape, training, workSpace, reserveSpace, b, be);
    h.record_kernel_time(be.run_timed([&] {
      be.rnn_forward(p.shape, b);
      std::vector<RowMoves> out{scatter(be, ys, p, st.y, y)};
      if (hy) out.push_back(permute_out(be, d, p, xs.batch, st.s[2], hx, hy));
      if (lstm && cy) out.push_back(permute_out(be, d, p, xs.batch, st.s[3], cx, cy));
      be.move_rows(out);
    }));
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
    const SeqTensorDescriptor& xs = set_seq(xDesc, "xDesc");
    const SeqTensorDescriptor& ys = set_seq(yDesc, "yDesc");
    check_y(d, xs, ys);
    const SeqPlan p = plan(d, xs);
    check_state(d, xs, hDesc, "hDesc");
    const bool lstm = d.mode == miopenLSTM;
    if (lstm) check_state(d, xs, cDesc, "cDesc");
    ANYDNN_CHECK_BADPARM(dy != nullptr && dx != nullptr && w != nullptr,
                         "dy, dx and w must not be null pointers");
    check_sizes(p, d, weightSpaceSize, workSpaceNumBytes, workSpace, reserveSpaceNumBytes,
                reserveSpace, true);
    (void)y;
    log_seq_command(h.config(), d, p, xs, 2, false);
    Backend& be = h.backend();
    const Staging st = staging(p, workSpace);
    std::vector<RowMoves> in{gather(ys, p, dy, st.y)};
    if (hx) in.push_back(permute_in(d, p, xs.batch, hx, st.s[0]));
    if (lstm && cx) in.push_back(permute_in(d, p, xs.batch, cx, st.s[1]));
    if (dhy) in.push_back(permute_in(d, p, xs.batch, dhy, st.s[2]));
    if (lstm && dcy) in.push_back(permute_in(d, p, xs.batch, dcy, st.s[3]));
    be.move_rows(in);
    RnnBackwardBuffers b;
    b.hx = hx ? st.s[0] : nullptr;
    b.cx = lstm && cx ? st.s[1] : nullptr;
    b.dhy = dhy ? st.s[2] : nullptr;
    b.dcy = lstm && dcy ? st.s[3] : nullptr;
    RnnHalfStaging io(p.shape, workSpace, be);
    b.w = io.in(w, d.param_count(p.shape.input));
    b.dy = st.y;
    b.dx = st.x;
    b.dhx = st.s[4];
    b.dcx = lstm ? st.s[5] : nullptr;
    attach_backward_space(d, p.shape, workSpace, reserveSpace, b);
    h.record_kernel_time(be.run_timed([&] {
      be.rnn_backward_data(p.shape, b);
      std::vector<RowMoves> out{scatter(be, xs, p, st.x, dx)};
      if (dhx) out.push_back(permute_out(be, d, p, xs.batch, st.s[4], dhy, dhx));
      if (lstm && dcx) out.push_back(permute_out(be, d, p, xs.batch, st.s[5], dcy, dcx));
      be.move_rows(out);
    }));
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
    const SeqTensorDescriptor& xs = set_seq(xDesc, "xDesc");
    check_y(d, xs, set_seq(yDesc, "yDesc"));
    const SeqPlan p = plan(d, xs);
    check_state(d, xs, hDesc, "hDesc");
    ANYDNN_CHECK_BADPARM(x != nullptr && dw != nullptr, "x and dw must not be null pointers");
    check_sizes(p, d, weightSpaceSize, workSpaceNumBytes, workSpace, reserveSpaceNumBytes,
                reserveSpace, true);
    (void)y;
    log_seq_command(h.config(), d, p, xs, 4, false);
    Backend& be = h.backend();
    const Staging st = staging(p, workSpace);
    std::vector<RowMoves> in{gather(xs, p, x, st.x)};
    if (hx) in.push_back(permute_in(d, p, xs.batch, hx, st.s[0]));
    be.move_rows(in);
    RnnBackwardBuffers b;
    b.x = st.x;
    b.hx = hx ? st.s[0] : nullptr;
    RnnHalfStaging io(p.shape, workSpace, be);
    b.dw = io.out(dw, d.param_count(p.shape.input));
    attach_backward_space(d, p.shape, workSpace, reserveSpace, b);
    h.record_kernel_time(be.run_timed([&] {
      be.rnn_backward_weights(p.shape, b);
      io.finish();
    }));
  });
}
