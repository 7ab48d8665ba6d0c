// What the legacy and sequence RNN shims both hand to the backend: the activation store (the
// reserve in training, the front of the workspace in inference), the dropout masks behind it,
// and the dropout settings of the RNN's dropout descriptor.
#pragma once

#include <miopen/miopen.h>

#include <vector>

#include "core/rnn_descriptor.hpp"
#include "handle/handle.hpp"
#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_shape.hpp"

namespace anydnn::api {

// The RNN descriptor behind a handle, BadParm unless it has been set.
const RnnDescriptor& set_rnn(miopenRNNDescriptor_t r);

// Sets b.store, b.masks, b.temp and the dropout fields; in training, advances the dropout
// generator when the descriptor asks for state evolution (the states buffer is the backend's
// memory: read and written through `backend`).
void attach_forward_space(const RnnDescriptor& d, const RnnShape& s, bool training, void* workspace,
                          void* reserve, RnnForwardBuffers& b, Backend& backend);
// Sets b.store, b.masks, b.work and b.dropout from the forward's reserve.
void attach_backward_space(const RnnDescriptor& d, const RnnShape& s, void* workspace,
                           const void* reserve, RnnBackwardBuffers& b);

// What the sequence API adds to its driver command (base rnn_seq / rnn_seqfp16): the caller's
// batch and longest length, the per-sequence lengths (-K) and the layout (-I).
struct RnnSeqCommand {
  int batch = 0, max_len = 0, layout = 0;
  const std::vector<int>* lens = nullptr;
};

// "Command [LogCmdRNN] ./bin/MIOpenDriver rnn -n ... -F <1|2|4> -t 1 -w 1 ..." (MIOpen's
// format; also echoed to stdout, as MIOpen does) when the handle's config asks for driver
// commands. `forw` is 1, 2 or 4; `seq` is null for the legacy API. Our driver accepts every
// flag printed.
void log_rnn_command(const Config& cfg, const RnnDescriptor& d, const RnnShape& s, int forw,
                     bool inference, const RnnSeqCommand* seq = nullptr);

}  // namespace anydnn::api
