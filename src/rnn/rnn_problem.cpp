#include "rnn/rnn_problem.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

namespace anydnn {

namespace {

// The driver command of a problem (MIOpen's LogCmdRNN field order).
std::string make_key(const RnnProblem& p) {
  const RnnDescriptor& d = p.desc();
  const RnnShape& s = p.shape();
  const bool seq = p.sequence_api();
  const int forw = static_cast<int>(p.direction());
  std::ostringstream o;
  const bool half = d.type == miopenHalf;
  o << (seq ? (half ? "rnn_seqfp16" : "rnn_seq") : (half ? "rnnfp16" : "rnn")) << " -n ";
  if (seq) {
    o << p.seq().batch;
  } else if (std::all_of(s.batch.begin(), s.batch.end(),
                         [&](size_t b) { return b == s.batch[0]; })) {
    o << s.batch[0];
  } else {
    for (size_t t = 0; t < s.batch.size(); ++t)
      o << (t ? "," : "") << s.batch[t];
  }
  const char* modes[] = {"relu", "tanh", "lstm", "gru"};
  o << " -W " << s.input << " -H " << d.hidden << " -l " << d.layers << " -b "
    << (d.with_bias() ? 1 : 0) << " -m " << modes[d.mode] << " -p " << (d.skip() ? 1 : 0) << " -r "
    << (d.dirs() == 2 ? 1 : 0) << " -q " << (d.padding == miopenRNNIOWithPadding ? 1 : 0) << " -k "
    << (seq ? static_cast<size_t>(p.seq().max_len) : s.steps());
  if (forw == 1) o << " -c " << (p.inference() ? 1 : 0);
  o << " -F " << forw << " -t 1 -w 1";
  if (const DropoutDescriptor* dd = p.dropout()) {
    o << " -U 1 -P " << dd->dropout << " -L " << (dd->seed & 0xffffffffull) << " -M "
      << (dd->seed >> 32);
  }
  if (seq) {
    o << " -K ";
    for (size_t i = 0; i < p.seq().lens.size(); ++i)
      o << (i ? "," : "") << p.seq().lens[i];
    o << " -a " << static_cast<int>(d.algo) << " -I " << p.seq().layout;
  }
  return o.str();
}

}  // namespace

RnnProblem::RnnProblem(RnnShape shape, const DropoutDescriptor* dropout, RnnDirection direction,
                       bool inference, const RnnSeqLayout* seq)
    : shape_(std::move(shape)),
      dropout_(dropout),
      direction_(direction),
      inference_(inference),
      seq_api_(seq != nullptr) {
  if (seq) seq_ = *seq;
  key_ = make_key(*this);
}

}  // namespace anydnn
