// MIOpenDriver rnn: MIOpen's flags and output lines (shared/reference/miopen.md §c), run through
// the public C API and verified against the double reference (forward, and backpropagation
// through time for backward data and weights). `-t` is accepted (MIOpen's own LogCmdRNN prints
// it although its driver dropped it), so every logged line replays.
#pragma once

#include <miopen/miopen.h>

#include <string>
#include <vector>

namespace anydnn::driver {

int run_rnn_driver(const std::string& base, int argc, const char* const* argv);

class InputFlags;
// Prints "<what> Verifies on CPU and GPU (<rms>)" or "<what> FAILED: <rms>" against MIOpen's RNN
// tolerance for `type` (fp32 1e-6, fp16 5e-2); true when it verifies.
bool check_rnn_output(const char* what, const std::vector<double>& want,
                      const std::vector<double>& got, miopenDataType_t type);
// MIOpenDriver's rnn flag table (shared by rnn, rnnfp16, rnn_seq and rnn_seqfp16).
void add_rnn_flags(InputFlags& flags);
// rnn_seq / rnn_seqfp16 (by `base`): the sequence API (miopenRNNForward, ...) with -I layout (1
// seq-major packed, 2 seq-major padded, 3 batch-major padded) and -K per-sequence lengths.
int run_rnn_seq_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
