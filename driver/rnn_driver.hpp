// MIOpenDriver rnn: MIOpen's flags and output lines (shared/reference/miopen.md §c), run through
// the public C API and verified against the double reference (forward, and backpropagation
// through time for backward data and weights). `-t` is accepted (MIOpen's own LogCmdRNN prints
// it although its driver dropped it), so every logged line replays.
#pragma once

#include <miopen/miopen.h>

#include <memory>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "double_gemm.hpp"

namespace anydnn::driver {

int run_rnn_driver(const std::string& base, int argc, const char* const* argv);

class InputFlags;

// The ranges MIOpen's own driver draws from (driver/rnn_driver.hpp AllocateBuffersAndCopy and
// driver/rnn_seq_driver.hpp, MIOpen 2d1fd997): with scale = 0.01, the inputs, hx, cx, dy, dhy and
// dcy are uniform in [0, scale) and every weight and bias uniform in scale * [-0.5, 0.5), with no
// scaling by the hidden size. Those weights keep the recurrence contracting (spectral radius of
// W_h about 0.005 / sqrt(3) * sqrt(H), 0.12 at DeepBench's H = 1760), which is what MIOpen's fixed
// 1e-6 tolerance assumes; wider ones (U(-0.1, 0.1)) make it expanding at large H, and fp32
// rounding then grows with every step against a fixed bound.
inline constexpr float kRnnDataLo = 0.0f, kRnnDataHi = 0.01f;
inline constexpr float kRnnWeightLo = -0.005f, kRnnWeightHi = 0.005f;

// Prints "<what> Verifies on CPU and GPU (<err>)" or "<what> FAILED: <err>" and returns whether it
// verifies, as MIOpen's VerifyForward / VerifyBackward do for every RNN output: err is MIOpen's
// rms_range (test/verify.hpp: rms difference over the largest magnitude in either vector, here
// ref::relative_rms), against one tolerance for every output and pass (fp32 1e-6, fp16 5e-2).
bool check_rnn_output(const char* what, const std::vector<double>& want,
                      const std::vector<double>& got, miopenDataType_t type);
// The RNN reference's matrix products for a run whose tensors live in `memory`: cuBLAS's Dgemm
// for CUDA runs unless MIOPEN_DRIVER_USE_GPU_REFERENCE=0 (as conv's GPU reference), else null,
// which the reference takes as OpenBLAS on the host. A device that cannot start one falls back
// to the host with a note.
std::unique_ptr<ref::DoubleGemm> rnn_reference_gemm(Memory memory);
// MIOpenDriver's rnn flag table (shared by rnn, rnnfp16, rnn_seq and rnn_seqfp16).
void add_rnn_flags(InputFlags& flags);
// rnn_seq / rnn_seqfp16 (by `base`): the sequence API (miopenRNNForward, ...) with -I layout (1
// seq-major packed, 2 seq-major padded, 3 batch-major padded) and -K per-sequence lengths.
int run_rnn_seq_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
