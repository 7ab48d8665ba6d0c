#include "rnn/rnn_seq_ops.hpp"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_half_staging.hpp"
#include "rnn/rnn_kernels.hpp"
#include "rnn/rnn_passes.hpp"

namespace anydnn {

namespace {

// The sequence API's longest sequence (docs/api-status.md): 2^24 steps, a 128 MiB per-step
// table.
constexpr int kMaxRnnSteps = 1 << 24;

// The packed view of a call: sequences sorted by decreasing length (stable), batch per step.
RnnShape plan(const RnnDescriptor& d, const SeqTensorDescriptor& x, RnnSeqLayout& seq) {
  ANYDNN_CHECK_BADPARM(x.type == d.type, "xDesc and rnnDesc data types differ");
  std::vector<int> idx(static_cast<size_t>(x.batch));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return x.lens[a] > x.lens[b]; });
  seq.order.clear();
  for (int i : idx)
    if (x.lens[i] > 0) seq.order.push_back(i);
  ANYDNN_CHECK_BADPARM(!seq.order.empty(), "every sequence has length 0");
  // The packed shape keeps one batch size per step (the legacy API's per-step descriptors): a
  // valid but huge length would size it in gigabytes before any data is touched.
  const int steps = x.lens[seq.order[0]];
  ANYDNN_CHECK(steps <= kMaxRnnSteps, miopenStatusNotImplemented,
               "a sequence of " << steps << " steps: anydnn's RNN takes at most " << kMaxRnnSteps);
  // Batch of step t = sequences longer than t: walk the sorted lengths once, O(batch + steps).
  std::vector<size_t> batch(static_cast<size_t>(steps));
  size_t running = seq.order.size();
  for (int t = 0, k = static_cast<int>(seq.order.size()) - 1; t < steps; ++t) {
    while (k >= 0 && x.lens[seq.order[static_cast<size_t>(k)]] <= t) {
      --running;
      --k;
    }
    batch[static_cast<size_t>(t)] = running;
  }
  seq.batch = x.batch;
  seq.max_len = x.max_len;
  seq.layout = static_cast<int>(x.layout);
  seq.lens = x.lens;
  return make_rnn_shape(d, static_cast<size_t>(x.vec), std::move(batch));
}

// The legacy workspace, rounded up to 64 bytes; the staging area follows it: packed x (dx)
// rows, packed y (dy) rows and six [L*D, B_0, H] state buffers (B_0 = the sequences of length
// > 0).
size_t legacy_ws(const RnnShape& s) {
  return (s.workspace_bytes() + 63) / 64 * 64;
}
size_t staging_floats(const RnnShape& s) {
  return s.rows * (s.input + s.out_width()) + 6 * s.state_values();
}

struct Staging {
  float *x, *y, *s[6];
};

Staging staging(const RnnShape& sh, void* ws) {
  float* base = reinterpret_cast<float*>(static_cast<char*>(ws) + legacy_ws(sh));
  Staging st;
  st.x = base;
  st.y = st.x + sh.rows * sh.input;
  float* s = st.y + sh.rows * sh.out_width();
  for (auto& e : st.s) {
    e = s;
    s += sh.state_values();
  }
  return st;
}

// The caller's tensors hold fp32 or (rnnfp16) half values; the packed staging rows are fp32.
// Each function below describes its rows as one RowMoves group; the backend moves (and
// converts) every group of a phase at once (on CUDA: one offset table, one kernel per group).

// Sequence tensor -> packed rows (vec values per row).
RowMoves gather(const SeqTensorDescriptor& d, const RnnProblem& p, const void* src, float* rows) {
  const RnnShape& s = p.shape();
  const std::vector<int>& order = p.seq().order;
  RowMoves m{src, d.type == miopenHalf, rows, false, static_cast<size_t>(d.vec), {}};
  m.rows.reserve(s.rows);
  for (size_t t = 0; t < s.steps(); ++t)
    for (size_t i = 0; i < s.batch[t]; ++i)
      m.rows.emplace_back(d.offset(order[i], static_cast<int>(t)), (s.row_start[t] + i) * d.vec);
  return m;
}
// Packed rows -> sequence tensor; padding positions first get the marker (else 0).
RowMoves scatter(Backend& be, const SeqTensorDescriptor& d, const RnnProblem& p, const float* rows,
                 void* dst) {
  const bool half = d.type == miopenHalf;
  if (d.layout != miopenRNNDataSeqMajorNotPadded)
    be.kernels<RnnKernels>().fill(dst, d.element_space(), d.has_marker ? d.marker : 0.0f, half);
  const RnnShape& s = p.shape();
  const std::vector<int>& order = p.seq().order;
  RowMoves m{rows, false, dst, half, static_cast<size_t>(d.vec), {}};
  m.rows.reserve(s.rows);
  for (size_t t = 0; t < s.steps(); ++t)
    for (size_t i = 0; i < s.batch[t]; ++i)
      m.rows.emplace_back((s.row_start[t] + i) * d.vec, d.offset(order[i], static_cast<int>(t)));
  return m;
}

// [L*D, batch, H] in the caller's sequence order <-> [L*D, B_0, H] in sorted order.
RowMoves permute_in(const RnnProblem& p, const void* src, float* dst) {
  const RnnDescriptor& d = p.desc();
  const std::vector<int>& order = p.seq().order;
  const size_t H = d.hidden, B0 = order.size(), batch = p.seq().batch;
  RowMoves m{src, d.type == miopenHalf, dst, false, H, {}};
  for (size_t st = 0; st < static_cast<size_t>(d.layers) * d.dirs(); ++st)
    for (size_t i = 0; i < B0; ++i)
      m.rows.emplace_back((st * batch + order[i]) * H, (st * B0 + i) * H);
  return m;
}
// Sequences of length 0 keep `fallback` (their initial state / incoming gradient), or 0.
RowMoves permute_out(Backend& be, const RnnProblem& p, const float* src, const void* fallback,
                     void* dst) {
  const RnnDescriptor& d = p.desc();
  const std::vector<int>& order = p.seq().order;
  const size_t H = d.hidden, B0 = order.size(), batch = p.seq().batch;
  const size_t layers = static_cast<size_t>(d.layers) * d.dirs();
  const bool half = d.type == miopenHalf;
  const size_t esize = half ? 2 : 4, n = layers * batch * H;
  if (fallback)
    be.copy(dst, fallback, n * esize, CopyKind::DeviceToDevice);
  else
    be.fill_zero(dst, n * esize);  // +0.0 in both types
  RowMoves m{src, false, dst, half, H, {}};
  for (size_t st = 0; st < layers; ++st)
    for (size_t i = 0; i < B0; ++i)
      m.rows.emplace_back((st * B0 + i) * H, (st * batch + order[i]) * H);
  return m;
}

void check_state(const RnnDescriptor& d, const SeqTensorDescriptor& x, const TensorDescriptor& t,
                 const char* name) {
  const std::vector<size_t> want = {static_cast<size_t>(d.layers) * d.dirs(),
                                    static_cast<size_t>(x.batch), static_cast<size_t>(d.hidden)};
  ANYDNN_CHECK_BADPARM(t.lens() == want, name << " must be [layers*directions, batch, hidden]");
}

void check_y(const RnnDescriptor& d, const SeqTensorDescriptor& x, const SeqTensorDescriptor& y) {
  ANYDNN_CHECK_BADPARM(y.batch == x.batch && y.lens == x.lens && y.max_len == x.max_len &&
                           y.vec == d.dirs() * d.hidden && y.type == x.type,
                       "yDesc must have xDesc's sequences and directions*hidden values per step");
}

void check_sizes(const RnnShape& s, const RnnDescriptor& d, const RnnSeqCall& c,
                 bool need_reserve) {
  const size_t wneed = d.param_count(s.input) * data_type_size(d.type);
  ANYDNN_CHECK_BADPARM(c.weight_bytes >= wneed, "weightSpaceSize = " << c.weight_bytes
                                                                     << " is below the " << wneed
                                                                     << " bytes of the weights");
  const size_t need = legacy_ws(s) + staging_floats(s) * sizeof(float);
  ANYDNN_CHECK_BADPARM(c.space.workspace != nullptr && c.space.workspace_bytes >= need,
                       "workSpaceNumBytes = " << c.space.workspace_bytes << " is below the " << need
                                              << " bytes needed");
  if (need_reserve)
    ANYDNN_CHECK_BADPARM(c.space.reserve != nullptr && c.space.reserve_bytes >= s.reserve_bytes(),
                         "reserveSpaceNumBytes = " << c.space.reserve_bytes << " is below the "
                                                   << s.reserve_bytes() << " bytes needed");
}

}  // namespace

void rnn_seq_temp_sizes(const RnnDescriptor& d, const DropoutDescriptor*,
                        const SeqTensorDescriptor& x, bool training, size_t* workspace,
                        size_t* reserve) {
  RnnSeqLayout seq;
  const RnnShape s = plan(d, x, seq);
  if (workspace) *workspace = legacy_ws(s) + staging_floats(s) * sizeof(float);
  if (reserve) *reserve = training ? s.reserve_bytes() : 0;
}

RnnProblem rnn_seq_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                           RnnDirection direction, const RnnSeqCall& c) {
  const SeqTensorDescriptor& xs = *c.x;
  check_y(d, xs, *c.y);
  RnnSeqLayout seq;
  RnnShape s = plan(d, xs, seq);
  check_state(d, xs, *c.h, "hDesc");
  const bool lstm = d.mode == miopenLSTM;
  bool need_reserve = true;
  switch (direction) {
    case RnnDirection::Forward:
      if (lstm) check_state(d, xs, *c.c, "cDesc");
      ANYDNN_CHECK_BADPARM(c.xp != nullptr && c.yp != nullptr && c.wp != nullptr,
                           "x, y and w must not be null pointers");
      need_reserve = c.training;
      break;
    case RnnDirection::BackwardData:
      if (lstm) check_state(d, xs, *c.c, "cDesc");
      ANYDNN_CHECK_BADPARM(c.dyp != nullptr && c.dxp != nullptr && c.wp != nullptr,
                           "dy, dx and w must not be null pointers");
      break;
    case RnnDirection::BackwardWeights:
      ANYDNN_CHECK_BADPARM(c.xp != nullptr && c.dwp != nullptr,
                           "x and dw must not be null pointers");
      break;
  }
  check_sizes(s, d, c, need_reserve);
  const bool inference = direction == RnnDirection::Forward && !c.training;
  return RnnProblem(std::move(s), dropout, direction, inference, &seq);
}

void rnn_seq_run(Handle& h, const RnnProblem& p, const RnnSeqCall& c) {
  const RnnShape& s = p.shape();
  const RnnDescriptor& d = p.desc();
  const bool lstm = p.lstm();
  Backend& be = h.backend();
  const Staging st = staging(s, c.space.workspace);
  if (p.direction() == RnnDirection::Forward) {
    std::vector<RowMoves> in{gather(*c.x, p, c.xp, st.x)};
    if (c.hxp) in.push_back(permute_in(p, c.hxp, st.s[0]));
    if (lstm && c.cxp) in.push_back(permute_in(p, c.cxp, st.s[1]));
    be.kernels<RnnKernels>().move_rows(in);
    RnnHalfStaging io(s, c.space.workspace, be);
    RnnForwardBuffers b;
    b.x = st.x;
    b.hx = c.hxp ? st.s[0] : nullptr;
    b.cx = lstm && c.cxp ? st.s[1] : nullptr;
    b.w = io.in(c.wp, d.param_count(s.input));
    b.y = st.y;
    b.hy = st.s[2];
    b.cy = lstm ? st.s[3] : nullptr;
    attach_forward_space(p, c.training, c.space.workspace, c.space.reserve, b, be);
    h.record_kernel_time(h.run_primitive([&] {
      rnn_forward_pass(be, s, b);
      std::vector<RowMoves> out{scatter(be, *c.y, p, st.y, c.yp)};
      if (c.hyp) out.push_back(permute_out(be, p, st.s[2], c.hxp, c.hyp));
      if (lstm && c.cyp) out.push_back(permute_out(be, p, st.s[3], c.cxp, c.cyp));
      be.kernels<RnnKernels>().move_rows(out);
    }));
  } else if (p.direction() == RnnDirection::BackwardData) {
    std::vector<RowMoves> in{gather(*c.y, p, c.dyp, st.y)};
    if (c.hxp) in.push_back(permute_in(p, c.hxp, st.s[0]));
    if (lstm && c.cxp) in.push_back(permute_in(p, c.cxp, st.s[1]));
    if (c.dhyp) in.push_back(permute_in(p, c.dhyp, st.s[2]));
    if (lstm && c.dcyp) in.push_back(permute_in(p, c.dcyp, st.s[3]));
    be.kernels<RnnKernels>().move_rows(in);
    RnnBackwardBuffers b;
    b.hx = c.hxp ? st.s[0] : nullptr;
    b.cx = lstm && c.cxp ? st.s[1] : nullptr;
    b.dhy = c.dhyp ? st.s[2] : nullptr;
    b.dcy = lstm && c.dcyp ? st.s[3] : nullptr;
    RnnHalfStaging io(s, c.space.workspace, be);
    b.w = io.in(c.wp, d.param_count(s.input));
    b.dy = st.y;
    b.dx = st.x;
    b.dhx = st.s[4];
    b.dcx = lstm ? st.s[5] : nullptr;
    attach_backward_space(p, c.space.workspace, c.space.reserve, b);
    h.record_kernel_time(h.run_primitive([&] {
      rnn_backward_data_pass(be, s, b);
      std::vector<RowMoves> out{scatter(be, *c.x, p, st.x, c.dxp)};
      if (c.dhxp) out.push_back(permute_out(be, p, st.s[4], c.dhyp, c.dhxp));
      if (lstm && c.dcxp) out.push_back(permute_out(be, p, st.s[5], c.dcyp, c.dcxp));
      be.kernels<RnnKernels>().move_rows(out);
    }));
  } else {
    std::vector<RowMoves> in{gather(*c.x, p, c.xp, st.x)};
    if (c.hxp) in.push_back(permute_in(p, c.hxp, st.s[0]));
    be.kernels<RnnKernels>().move_rows(in);
    RnnBackwardBuffers b;
    b.x = st.x;
    b.hx = c.hxp ? st.s[0] : nullptr;
    RnnHalfStaging io(s, c.space.workspace, be);
    b.dw = io.out(c.dwp, d.param_count(s.input));
    attach_backward_space(p, c.space.workspace, c.space.reserve, b);
    h.record_kernel_time(h.run_primitive([&] {
      rnn_backward_weights_pass(be, s, b);
      io.finish();
    }));
  }
}

}  // namespace anydnn
