#include "api/rnn_call.hpp"

#include <cstdio>

#include "api/api_objects.hpp"
#include "core/logger.hpp"

namespace anydnn::api {

const RnnDescriptor& set_rnn(miopenRNNDescriptor_t r) {
  const RnnDescriptor& d = deref(r);
  ANYDNN_CHECK_BADPARM(d.set, "rnnDesc has not been set");
  return d;
}

const DropoutDescriptor* rnn_dropout(const RnnDescriptor& d) {
  return d.dropout != nullptr ? &deref(d.dropout, "rnnDesc's dropoutDesc") : nullptr;
}

TensorDescs step_descs(int seq_len, const miopenTensorDescriptor_t* descs, const char* name) {
  ANYDNN_CHECK_BADPARM(seq_len > 0, "sequenceLen = " << seq_len << " must be > 0");
  ANYDNN_CHECK_BADPARM(descs != nullptr, name << " is a null pointer");
  TensorDescs out;
  out.reserve(static_cast<size_t>(seq_len));
  for (int t = 0; t < seq_len; ++t)
    out.push_back(&deref_set(descs[t], (std::string(name) + "[t]").c_str()));
  return out;
}

void log_rnn_command(const Config& cfg, const RnnProblem& p) {
  if (!cfg.log_driver_commands) return;
  log_driver_command(cfg, "LogCmdRNN", p.key());
  std::printf("./bin/MIOpenDriver %s\n", p.key().c_str());
  std::fflush(stdout);
}

}  // namespace anydnn::api
