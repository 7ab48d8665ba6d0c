#include "api/rnn_call.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "backend/backend.hpp"

namespace anydnn::api {

namespace {

const DropoutDescriptor& dropout_of(const RnnDescriptor& d) {
  const DropoutDescriptor& dd = deref(d.dropout, "rnnDesc's dropoutDesc");
  ANYDNN_CHECK_BADPARM(dd.set, "the RNN's dropout descriptor has not been set");
  return dd;
}

}  // namespace

void log_rnn_command(const Config& cfg, const RnnDescriptor& d, const RnnShape& s, int forw,
                     bool inference, const RnnSeqCommand* seq) {
  if (!cfg.log_driver_commands) return;
  std::ostringstream o;
  const bool half = d.type == miopenHalf;
  o << (seq ? (half ? "rnn_seqfp16" : "rnn_seq") : (half ? "rnnfp16" : "rnn")) << " -n ";
  if (seq) {
    o << seq->batch;
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
    << (seq ? static_cast<size_t>(seq->max_len) : s.steps());
  if (forw == 1) o << " -c " << (inference ? 1 : 0);
  o << " -F " << forw << " -t 1 -w 1";
  if (d.dropout != nullptr) {
    const DropoutDescriptor& dd = deref(d.dropout, "dropoutDesc");
    o << " -U 1 -P " << dd.dropout << " -L " << (dd.seed & 0xffffffffull) << " -M "
      << (dd.seed >> 32);
  }
  if (seq) {
    o << " -K ";
    for (size_t i = 0; i < seq->lens->size(); ++i)
      o << (i ? "," : "") << (*seq->lens)[i];
    o << " -a " << static_cast<int>(d.algo) << " -I " << seq->layout;
  }
  log_driver_command(cfg, "LogCmdRNN", o.str());
  std::printf("./bin/MIOpenDriver %s\n", o.str().c_str());
  std::fflush(stdout);
}

const RnnDescriptor& set_rnn(miopenRNNDescriptor_t r) {
  const RnnDescriptor& d = deref(r);
  ANYDNN_CHECK_BADPARM(d.set, "rnnDesc has not been set");
  return d;
}

void attach_forward_space(const RnnDescriptor& d, const RnnShape& s, bool training, void* workspace,
                          void* reserve, RnnForwardBuffers& b, Backend& backend) {
  auto* store = static_cast<uint8_t*>(training ? reserve : workspace);
  b.store = reinterpret_cast<float*>(store);
  b.masks = store + s.mask_offset_bytes();
  b.temp = static_cast<float*>(workspace) + s.temp_offset_floats(0);
  if (s.dropout_between_layers()) {
    const DropoutDescriptor& dd = dropout_of(d);
    b.dropout = training ? dd.dropout : 0.0f;  // inference: no dropout
    const DropoutState st = dd.read_state(backend);
    b.dropout_seed = st.seed;
    b.dropout_counter = st.counter;
    if (training && dd.state_evo) dd.advance_counter(backend, st);
  }
}

void attach_backward_space(const RnnDescriptor& d, const RnnShape& s, void* workspace,
                           const void* reserve, RnnBackwardBuffers& b) {
  b.store = static_cast<const float*>(reserve);
  b.masks = static_cast<const uint8_t*>(reserve) + s.mask_offset_bytes();
  b.work = static_cast<float*>(workspace);
  if (s.dropout_between_layers()) b.dropout = dropout_of(d).dropout;
}

}  // namespace anydnn::api
