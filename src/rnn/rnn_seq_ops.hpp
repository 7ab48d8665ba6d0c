// Backend-agnostic RNN front-end of the sequence API (miopenRNNForward, miopenRNNBackwardSeqData,
// miopenRNNBackwardWeightsSeqTensor, miopenGetRNNTempSpaceSizes). Sequences may come in any
// order and layout; each call gathers them into the packed, length-sorted rows the passes run
// on (in a staging area after the legacy workspace), runs the same passes as the legacy API
// (rnn_passes.hpp), and scatters the results back (padding positions get the padding marker,
// else 0).
#pragma once

#include <cstddef>

#include "core/seq_tensor_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "handle/handle.hpp"
#include "rnn/rnn_ops.hpp"
#include "rnn/rnn_problem.hpp"

namespace anydnn {

// Workspace and reserve bytes of a call (reserve 0 for inference).
void rnn_seq_temp_sizes(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                        const SeqTensorDescriptor& x, bool training, size_t* workspace,
                        size_t* reserve);

// The descriptors (resolved and set; c only for LSTM) and buffers of a call. Forward reads x,
// hx, cx and writes y, hy, cy; backward data reads dy, hx, cx, dhy, dcy and writes dx, dhx,
// dcx; backward weights reads x, hx and writes dw.
struct RnnSeqCall {
  const SeqTensorDescriptor *x = nullptr, *y = nullptr;
  const TensorDescriptor *h = nullptr, *c = nullptr;
  const void *xp = nullptr, *hxp = nullptr, *cxp = nullptr, *dyp = nullptr, *dhyp = nullptr,
             *dcyp = nullptr, *wp = nullptr;
  void *yp = nullptr, *hyp = nullptr, *cyp = nullptr, *dxp = nullptr, *dhxp = nullptr,
       *dcxp = nullptr, *dwp = nullptr;
  size_t weight_bytes = 0;
  RnnSpace space;
  bool training = true;  // forward only
};

// Validate a call of `direction` and build its problem (the shim logs its key, then runs it).
RnnProblem rnn_seq_problem(const RnnDescriptor& d, const DropoutDescriptor* dropout,
                           RnnDirection direction, const RnnSeqCall& c);
void rnn_seq_run(Handle& h, const RnnProblem& p, const RnnSeqCall& c);

}  // namespace anydnn
