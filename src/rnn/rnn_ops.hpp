// Backend-agnostic RNN front-end of the legacy per-step API: validates a call's descriptors
// against the RNN (lengths, types, the weight count, workspace and reserve sizes), builds its
// RnnProblem, and runs the pass (rnn_passes.hpp) on the handle's backend, timed for
// miopenGetKernelTime. fp16 calls are staged through fp32 (rnn_half_staging.hpp). The C shims
// (api/rnn_api.cpp) resolve the opaque handles first; the sequence API is rnn_seq_ops.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/tensor_descriptor.hpp"
#include "handle/handle.hpp"
#include "rnn/rnn_problem.hpp"

namespace anydnn {

using TensorDescs = std::vector<const TensorDescriptor*>;

// The first `want` lengths of a descriptor, which may carry trailing lengths of 1 beyond them
// (PyTorch's descriptors); BadParm with the reason otherwise.
std::vector<size_t> rnn_leading_lens(const TensorDescriptor& t, size_t want,
                                     const std::string& name, const char* shape);
// Input size I from a [batch, I] input descriptor.
size_t rnn_input_size(const TensorDescriptor& x, const char* name = "xDesc");
// The shape of a legacy call from its per-step input descriptors (one per step).
RnnShape rnn_legacy_shape(const RnnDescriptor& d, const TensorDescs& x);

// Padded I/O (miopenSetRNNPaddingMode(miopenRNNIOWithPadding)): x, y, dx and dy hold every step
// padded to B_0 rows while xDesc[t] still says B_t. As MIOpen (RNNTensorPaddingConverter), the
// calls copy them into packed buffers in the workspace, run the packed passes, and copy the
// outputs back (padding rows untouched). Bytes of those two buffers, 0 without padding.
size_t rnn_padded_io_bytes(const RnnShape& s);
// What miopenGetRNNWorkspaceSize returns: the passes' workspace plus the padded-I/O buffers.
inline size_t rnn_workspace_size(const RnnShape& s) {
  return s.workspace_bytes() + rnn_padded_io_bytes(s);
}

// Checks every role of a call; BadParm with the reason.
void rnn_check_weights(const RnnDescriptor& d, const RnnShape& s, const TensorDescriptor& w,
                       const char* name);
void rnn_check_state(const RnnDescriptor& d, const RnnShape& s, const TensorDescriptor& t,
                     const char* name);
void rnn_check_outputs(const RnnShape& s, const TensorDescs& y);
void rnn_check_workspace(const void* workspace, size_t bytes, size_t need);
void rnn_check_reserve(const void* reserve, size_t bytes, size_t need);

// A call's workspace and reserve (the reserve is only read by the backward passes).
struct RnnSpace {
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  void* reserve = nullptr;
  size_t reserve_bytes = 0;
};

// The descriptors (resolved and set; cx / cy only for LSTM) and buffers of a forward call.
struct RnnForwardCall {
  TensorDescs x, y;
  const TensorDescriptor *w = nullptr, *hx = nullptr, *hy = nullptr, *cx = nullptr, *cy = nullptr;
  const void *xp = nullptr, *hxp = nullptr, *cxp = nullptr, *wp = nullptr;
  void *yp = nullptr, *hyp = nullptr, *cyp = nullptr;
  RnnSpace space;
  bool training = false;
};
// Backward data: dx's descriptors carry the input size, y's and dy's the output width.
struct RnnBackwardDataCall {
  TensorDescs y, dy, dx;
  const TensorDescriptor *w = nullptr, *hx = nullptr, *dhy = nullptr, *dhx = nullptr, *cx = nullptr,
                         *dcy = nullptr, *dcx = nullptr;
  const void *dyp = nullptr, *dhyp = nullptr, *dcyp = nullptr, *wp = nullptr, *hxp = nullptr,
             *cxp = nullptr;
  void *dxp = nullptr, *dhxp = nullptr, *dcxp = nullptr;
  RnnSpace space;
};
struct RnnBackwardWeightsCall {
  TensorDescs x, y;
  const TensorDescriptor *dw = nullptr, *hx = nullptr;
  const void *xp = nullptr, *hxp = nullptr;
  void* dwp = nullptr;
  RnnSpace space;
};

// Validate a call and build its problem (the shim logs problem.key(), then runs it).
RnnProblem rnn_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                       const RnnForwardCall& c);
RnnProblem rnn_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                       const RnnBackwardDataCall& c);
RnnProblem rnn_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                       const RnnBackwardWeightsCall& c);

void rnn_run(Handle& h, const RnnProblem& p, const RnnForwardCall& c);
void rnn_run(Handle& h, const RnnProblem& p, const RnnBackwardDataCall& c);
void rnn_run(Handle& h, const RnnProblem& p, const RnnBackwardWeightsCall& c);

// MIOpen's packed weights one matrix or bias at a time: its descriptor and element offset
// (layer counts directions; id as in RnnDescriptor::check_param_id).
size_t rnn_layer_piece(const RnnDescriptor& d, int layer, const TensorDescriptor& x, int id,
                       bool bias, TensorDescriptor& piece);
// Copies a piece out of / into the packed weights w (wDesc must be large enough). get: piece
// may be null (only the descriptor is wanted).
void rnn_get_piece(Handle& h, const RnnDescriptor& d, int layer, const TensorDescriptor& x,
                   const TensorDescriptor& w_desc, const void* w, int id, bool bias,
                   TensorDescriptor& piece_desc, void* piece);
void rnn_set_piece(Handle& h, const RnnDescriptor& d, int layer, const TensorDescriptor& x,
                   const TensorDescriptor& w_desc, void* w, int id, bool bias,
                   const TensorDescriptor& piece_desc, const void* piece);

}  // namespace anydnn
