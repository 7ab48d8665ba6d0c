// What the legacy and sequence RNN shims share: resolving the RNN descriptor, its dropout
// descriptor and the per-step descriptor arrays, and the LogCmdRNN line of a problem.
#pragma once

#include <miopen/miopen.h>

#include "core/config.hpp"
#include "core/dropout_descriptor.hpp"
#include "core/rnn_descriptor.hpp"
#include "rnn/rnn_ops.hpp"
#include "rnn/rnn_problem.hpp"

namespace anydnn::api {

// The RNN descriptor behind a handle, BadParm unless it has been set.
const RnnDescriptor& set_rnn(miopenRNNDescriptor_t r);
// The RNN's dropout descriptor (_V2), or null without one; BadParm if it is not a live one.
const DropoutDescriptor* rnn_dropout(const RnnDescriptor& d);
// A per-step descriptor array of `seq_len` set descriptors (BadParm for seq_len <= 0, a null
// array or an unset entry).
TensorDescs step_descs(int seq_len, const miopenTensorDescriptor_t* descs, const char* name);

// "Command [LogCmdRNN] ./bin/MIOpenDriver <problem key>" (MIOpen's format; also echoed to
// stdout, as MIOpen does) when the handle's config asks for driver commands.
void log_rnn_command(const Config& cfg, const RnnProblem& p);

}  // namespace anydnn::api
