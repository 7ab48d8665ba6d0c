// An RNN problem: one pass of one RNN call (legacy per-step API or sequence API), validated,
// with its canonical string in MIOpenDriver syntax, the line MIOpen's LogCmdRNN prints (log
// field, test name, repro line; our driver accepts every flag in it):
//   "rnn -n 4,4,2 -W 10 -H 12 -l 2 -b 0 -m lstm -p 0 -r 1 -q 0 -k 3 -c 0 -F 1 -t 1 -w 1"
//   "rnn_seq -n 5 ... -k 6 -F 2 -t 1 -w 1 -K 6,6,4,1,2 -a 0 -I 2"
// The shape (batch per step, input size, workspace / reserve layout) is the packed view every
// pass runs on; a sequence-API problem adds the order that packs the caller's sequences.
#pragma once

#include <miopen/miopen.h>

#include <string>
#include <vector>

#include "core/dropout_descriptor.hpp"
#include "core/rnn_descriptor.hpp"
#include "rnn/rnn_shape.hpp"

namespace anydnn {

// The values are MIOpenDriver's -F bits.
enum class RnnDirection : int { Forward = 1, BackwardData = 2, BackwardWeights = 4 };

// What the sequence API adds: the caller's batch, longest length, per-sequence lengths and
// layout (the driver's -n, -k, -K and -I), and the packing order.
struct RnnSeqLayout {
  int batch = 0, max_len = 0, layout = 0;
  std::vector<int> lens;
  // Sorted position -> sequence index, sequences of length > 0 by decreasing length (stable).
  std::vector<int> order;
};

class RnnProblem {
 public:
  // `shape` comes from make_rnn_shape (validated); `dropout` is the RNN descriptor's dropout
  // descriptor resolved (null without one); `seq` is null for the legacy API.
  RnnProblem(RnnShape shape, const DropoutDescriptor* dropout, RnnDirection direction,
             bool inference, const RnnSeqLayout* seq = nullptr);

  const RnnDescriptor& desc() const { return *shape_.desc; }
  const RnnShape& shape() const { return shape_; }
  const DropoutDescriptor* dropout() const { return dropout_; }
  RnnDirection direction() const { return direction_; }
  bool inference() const { return inference_; }
  bool sequence_api() const { return seq_api_; }
  const RnnSeqLayout& seq() const { return seq_; }
  bool lstm() const { return desc().mode == miopenLSTM; }

  const std::string& key() const { return key_; }

 private:
  RnnShape shape_;
  const DropoutDescriptor* dropout_;
  RnnDirection direction_;
  bool inference_;
  bool seq_api_ = false;
  RnnSeqLayout seq_;
  std::string key_;
};

}  // namespace anydnn
