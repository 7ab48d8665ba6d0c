#include "rnn/rnn_ops.hpp"

#include <algorithm>
#include <utility>

#include "backend/backend.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_half_staging.hpp"
#include "rnn/rnn_kernels.hpp"
#include "rnn/rnn_passes.hpp"

namespace anydnn {

// MIOpen reads only the leading lengths of RNN descriptors: PyTorch's MIOpen path
// (aten/src/ATen/native/miopen/RNN_miopen.cpp) describes each step as [batch, features, 1]
// (packed input) or [batch, features, 1, 1, 1], and hx / cx as [layers*directions, batch,
// hidden, 1, 1]; anydnn accepts them too. Anything else past `want` is BadParm with the reason.
std::vector<size_t> rnn_leading_lens(const TensorDescriptor& t, size_t want,
                                     const std::string& name, const char* shape) {
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

size_t rnn_input_size(const TensorDescriptor& x, const char* name) {
  return rnn_leading_lens(x, 2, name, "[batch, input size]")[1];
}

RnnShape rnn_legacy_shape(const RnnDescriptor& d, const TensorDescs& xs) {
  std::vector<size_t> batch;
  size_t input = 0;
  for (size_t t = 0; t < xs.size(); ++t) {
    const TensorDescriptor& x = *xs[t];
    const auto l =
        rnn_leading_lens(x, 2, "xDesc[" + std::to_string(t) + "]", "[batch, input size]");
    ANYDNN_CHECK_BADPARM(x.type() == d.type, "xDesc[" << t << "] and rnnDesc data types differ");
    if (t == 0) input = l[1];
    ANYDNN_CHECK_BADPARM(l[1] == input, "xDesc[" << t << "] input size " << l[1]
                                                 << " differs from step 0's " << input);
    batch.push_back(l[0]);
  }
  return make_rnn_shape(d, input, std::move(batch));
}

size_t rnn_padded_io_bytes(const RnnShape& s) {
  if (s.desc->padding != miopenRNNIOWithPadding) return 0;
  return s.rows * (s.input + s.out_width()) * data_type_size(s.desc->type);
}

namespace {

// The packed copies of padded I/O, after the passes' workspace: `in` holds rows x I values
// (x, or dx), `out` rows x D*H (y, or dy); null without padding.
struct PaddedIo {
  char* in = nullptr;
  char* out = nullptr;
};
PaddedIo padded_io(const RnnShape& s, void* workspace) {
  if (rnn_padded_io_bytes(s) == 0) return {};
  char* in = static_cast<char*>(workspace) + s.workspace_bytes();
  return {in, in + s.rows * s.input * data_type_size(s.desc->type)};
}
// Padded (step t's row i at t * B_0 + i) <-> packed rows, `width` values each, same type.
RowMoves repack(const RnnShape& s, size_t width, const void* src, void* dst, bool to_packed) {
  const bool half = s.desc->type == miopenHalf;
  RowMoves m{src, half, dst, half, width, {}};
  m.rows.reserve(s.rows);
  for (size_t t = 0; t < s.steps(); ++t)
    for (size_t i = 0; i < s.batch[t]; ++i) {
      const size_t padded = (t * s.batch[0] + i) * width, packed = (s.row_start[t] + i) * width;
      m.rows.emplace_back(to_packed ? padded : packed, to_packed ? packed : padded);
    }
  return m;
}

}  // namespace

void rnn_check_weights(const RnnDescriptor& d, const RnnShape& s, const TensorDescriptor& w,
                       const char* name) {
  ANYDNN_CHECK_BADPARM(w.type() == d.type, name << " and rnnDesc data types differ");
  ANYDNN_CHECK_BADPARM(w.element_count() == d.param_count(s.input),
                       name << " holds " << w.element_count() << " elements, the RNN needs "
                            << d.param_count(s.input));
}

void rnn_check_state(const RnnDescriptor& d, const RnnShape& s, const TensorDescriptor& t,
                     const char* name) {
  const std::vector<size_t> want = {static_cast<size_t>(d.layers) * d.dirs(), s.batch[0],
                                    s.hidden()};
  const auto l = rnn_leading_lens(t, 3, name, "[layers*directions, batch, hidden]");
  ANYDNN_CHECK_BADPARM(l == want, name << " must be [layers*directions, batch, hidden] = ["
                                       << want[0] << ", " << want[1] << ", " << want[2] << "]");
}

void rnn_check_outputs(const RnnShape& s, const TensorDescs& ys) {
  ANYDNN_CHECK_BADPARM(ys.size() == s.steps(),
                       "yDesc has " << ys.size() << " steps, not " << s.steps());
  for (size_t t = 0; t < s.steps(); ++t) {
    const TensorDescriptor& y = *ys[t];
    const bool shaped = y.num_dims() >= 2 && std::all_of(y.lens().begin() + 2, y.lens().end(),
                                                         [](size_t v) { return v == 1; });
    ANYDNN_CHECK_BADPARM(shaped && y.lens()[0] == s.batch[t] && y.lens()[1] == s.out_width(),
                         "yDesc[" << t << "] must be [" << s.batch[t] << ", " << s.out_width()
                                  << "] (batch, directions*hidden)");
  }
}

void rnn_check_workspace(const void* workspace, size_t bytes, size_t need) {
  ANYDNN_CHECK_BADPARM(
      workspace != nullptr && bytes >= need,
      "workSpaceNumBytes = " << bytes << " is below the " << need << " bytes needed");
}

void rnn_check_reserve(const void* reserve, size_t bytes, size_t need) {
  ANYDNN_CHECK_BADPARM(
      reserve != nullptr && bytes >= need,
      "reserveSpaceNumBytes = " << bytes << " is below the " << need << " bytes needed");
}

RnnProblem rnn_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                       const RnnForwardCall& c) {
  RnnShape s = rnn_legacy_shape(d, c.x);
  rnn_check_outputs(s, c.y);
  rnn_check_weights(d, s, *c.w, "wDesc");
  rnn_check_state(d, s, *c.hx, "hxDesc");
  rnn_check_state(d, s, *c.hy, "hyDesc");
  if (d.mode == miopenLSTM) {
    rnn_check_state(d, s, *c.cx, "cxDesc");
    rnn_check_state(d, s, *c.cy, "cyDesc");
  }
  ANYDNN_CHECK_BADPARM(c.xp != nullptr && c.yp != nullptr && c.wp != nullptr,
                       "x, y and w must not be null pointers");
  rnn_check_workspace(c.space.workspace, c.space.workspace_bytes, rnn_workspace_size(s));
  if (c.training) rnn_check_reserve(c.space.reserve, c.space.reserve_bytes, s.reserve_bytes());
  return RnnProblem(std::move(s), dropout, RnnDirection::Forward, !c.training);
}

namespace {

// The checks both backward passes share.
RnnShape backward_shape(const RnnDescriptor& d, const TensorDescs& x, const TensorDescs& y,
                        const TensorDescriptor& w, const char* w_name, const TensorDescriptor& hx,
                        const void* workspace, size_t ws_bytes, const void* reserve,
                        size_t rs_bytes) {
  RnnShape s = rnn_legacy_shape(d, x);
  rnn_check_outputs(s, y);
  rnn_check_weights(d, s, w, w_name);
  rnn_check_state(d, s, hx, "hxDesc");
  rnn_check_workspace(workspace, ws_bytes, rnn_workspace_size(s));
  rnn_check_reserve(reserve, rs_bytes, s.reserve_bytes());
  return s;
}

}  // namespace

RnnProblem rnn_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                       const RnnBackwardDataCall& c) {
  RnnShape s = backward_shape(d, c.dx, c.y, *c.w, "weight descriptor", *c.hx, c.space.workspace,
                              c.space.workspace_bytes, c.space.reserve, c.space.reserve_bytes);
  rnn_check_outputs(s, c.dy);
  rnn_check_state(d, s, *c.dhy, "dhyDesc");
  rnn_check_state(d, s, *c.dhx, "dhxDesc");
  if (d.mode == miopenLSTM) {
    rnn_check_state(d, s, *c.cx, "cxDesc");
    rnn_check_state(d, s, *c.dcy, "dcyDesc");
    rnn_check_state(d, s, *c.dcx, "dcxDesc");
  }
  ANYDNN_CHECK_BADPARM(c.dyp != nullptr && c.dxp != nullptr && c.wp != nullptr,
                       "dy, dx and w must not be null pointers");
  return RnnProblem(std::move(s), dropout, RnnDirection::BackwardData, false);
}

RnnProblem rnn_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                       const RnnBackwardWeightsCall& c) {
  RnnShape s = backward_shape(d, c.x, c.y, *c.dw, "weight descriptor", *c.hx, c.space.workspace,
                              c.space.workspace_bytes, c.space.reserve, c.space.reserve_bytes);
  ANYDNN_CHECK_BADPARM(c.xp != nullptr && c.dwp != nullptr, "x and dw must not be null pointers");
  return RnnProblem(std::move(s), dropout, RnnDirection::BackwardWeights, false);
}

void rnn_run(Handle& h, const RnnProblem& p, const RnnForwardCall& c) {
  const RnnShape& s = p.shape();
  const RnnDescriptor& d = p.desc();
  const bool lstm = p.lstm();
  const size_t state = s.state_values();
  Backend& be = h.backend();
  const PaddedIo pio = padded_io(s, c.space.workspace);
  if (pio.in) be.kernels<RnnKernels>().move_rows({repack(s, s.input, c.xp, pio.in, true)});
  RnnHalfStaging io(s, c.space.workspace, be);
  RnnForwardBuffers b;
  b.x = io.in(pio.in ? pio.in : c.xp, s.rows * s.input);
  b.hx = io.in(c.hxp, state);
  b.cx = lstm ? io.in(c.cxp, state) : nullptr;
  b.w = io.in(c.wp, d.param_count(s.input));
  b.y = io.out(pio.out ? pio.out : c.yp, s.rows * s.out_width());
  b.hy = io.out(c.hyp, state);
  b.cy = lstm ? io.out(c.cyp, state) : nullptr;
  // Training keeps the activations in the reserve for the backward passes; inference uses
  // the same layout at the front of the workspace.
  attach_forward_space(p, c.training, c.space.workspace, c.space.reserve, b, be);
  h.record_kernel_time(h.run_primitive([&] {
    rnn_forward_pass(be, s, b);
    io.finish();
    if (pio.out)
      be.kernels<RnnKernels>().move_rows({repack(s, s.out_width(), pio.out, c.yp, false)});
  }));
}

void rnn_run(Handle& h, const RnnProblem& p, const RnnBackwardDataCall& c) {
  const RnnShape& s = p.shape();
  const bool lstm = p.lstm();
  const size_t state = s.state_values();
  Backend& be = h.backend();
  RnnBackwardBuffers b;
  attach_backward_space(p, c.space.workspace, c.space.reserve, b);
  const PaddedIo pio = padded_io(s, c.space.workspace);  // dy packed into `out`, dx into `in`
  if (pio.out) be.kernels<RnnKernels>().move_rows({repack(s, s.out_width(), c.dyp, pio.out, true)});
  RnnHalfStaging io(s, c.space.workspace, be);
  b.w = io.in(c.wp, p.desc().param_count(s.input));
  b.hx = io.in(c.hxp, state);
  b.cx = lstm ? io.in(c.cxp, state) : nullptr;
  b.dy = io.in(pio.out ? pio.out : c.dyp, s.rows * s.out_width());
  b.dhy = io.in(c.dhyp, state);
  b.dcy = lstm ? io.in(c.dcyp, state) : nullptr;
  b.dx = io.out(pio.in ? pio.in : c.dxp, s.rows * s.input);
  b.dhx = io.out(c.dhxp, state);
  b.dcx = lstm ? io.out(c.dcxp, state) : nullptr;
  h.record_kernel_time(h.run_primitive([&] {
    rnn_backward_data_pass(be, s, b);
    io.finish();
    if (pio.in) be.kernels<RnnKernels>().move_rows({repack(s, s.input, pio.in, c.dxp, false)});
  }));
}

void rnn_run(Handle& h, const RnnProblem& p, const RnnBackwardWeightsCall& c) {
  const RnnShape& s = p.shape();
  Backend& be = h.backend();
  RnnBackwardBuffers b;
  attach_backward_space(p, c.space.workspace, c.space.reserve, b);
  const PaddedIo pio = padded_io(s, c.space.workspace);
  if (pio.in) be.kernels<RnnKernels>().move_rows({repack(s, s.input, c.xp, pio.in, true)});
  RnnHalfStaging io(s, c.space.workspace, be);
  b.x = io.in(pio.in ? pio.in : c.xp, s.rows * s.input);
  b.hx = io.in(c.hxp, s.state_values());
  b.dw = io.out(c.dwp, p.desc().param_count(s.input));
  h.record_kernel_time(h.run_primitive([&] {
    rnn_backward_weights_pass(be, s, b);
    io.finish();
  }));
}

size_t rnn_layer_piece(const RnnDescriptor& d, int layer, const TensorDescriptor& x, int id,
                       bool bias, TensorDescriptor& piece) {
  const size_t I = rnn_input_size(x);
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

void rnn_get_piece(Handle& h, const RnnDescriptor& d, int layer, const TensorDescriptor& x,
                   const TensorDescriptor& w_desc, const void* w, int id, bool bias,
                   TensorDescriptor& piece_desc, void* piece) {
  TensorDescriptor desc;
  const size_t off = rnn_layer_piece(d, layer, x, id, bias, desc);
  ANYDNN_CHECK_BADPARM(w_desc.element_count() >= off + desc.element_count(),
                       "wDesc is too small for this RNN");
  piece_desc = desc;
  if (piece != nullptr) {
    ANYDNN_CHECK_BADPARM(w != nullptr, "w is a null pointer");
    const size_t ts = data_type_size(d.type);
    // Both are the caller's device buffers (host memory on the CPU backend).
    h.backend().copy(piece, static_cast<const char*>(w) + off * ts, desc.element_count() * ts,
                     CopyKind::DeviceToDevice);
  }
}

void rnn_set_piece(Handle& h, const RnnDescriptor& d, int layer, const TensorDescriptor& x,
                   const TensorDescriptor& w_desc, void* w, int id, bool bias,
                   const TensorDescriptor& given, const void* piece) {
  TensorDescriptor desc;
  const size_t off = rnn_layer_piece(d, layer, x, id, bias, desc);
  ANYDNN_CHECK_BADPARM(given.element_count() == desc.element_count() && given.is_packed(),
                       "mismatch between descriptors: the " << (bias ? "bias" : "parameter")
                                                            << " has " << desc.element_count()
                                                            << " elements");
  ANYDNN_CHECK_BADPARM(w_desc.element_count() >= off + desc.element_count(),
                       "wDesc is too small for this RNN");
  ANYDNN_CHECK_BADPARM(w != nullptr && piece != nullptr, "w and the source must not be null");
  const size_t ts = data_type_size(d.type);
  h.backend().copy(static_cast<char*>(w) + off * ts, piece, desc.element_count() * ts,
                   CopyKind::DeviceToDevice);
}

}  // namespace anydnn
