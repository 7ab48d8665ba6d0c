// MIOpenDriver ctc: MIOpen's flags, defaults and output lines (its driver/ctc_driver.hpp), run
// through miopenGetCTCLossWorkspaceSize and miopenCTCLoss and verified against the double
// reference with MIOpen's tolerances (losses 1e-5, gradients 1e-3) on the relative RMS error
// (MIOpen's rms_range divides by the signed maximum, 0 for the all-negative gradients of -m 0).
// As MIOpen's driver: labels uniform in [1, c], moved off the blank id; probs uniform in
// [0, 0.01), normalised per (time, batch) row when the softmax is applied (otherwise read as
// log-probabilities); the time steps are the longest input length. MIOpen prints its timing as
// "GPU Kernel Time Forward Conv. Elapsed" and so does this. Unlike MIOpen's (which always exits
// 0), a failed check makes the exit code kExitVerifyFailed. -o 1 writes MIOpen's dump files
// (dump_probs, dump_labels, dump_labelLengths, dump_inputLengths, and with -V 1
// dump_losses_cpu / dump_gradients_cpu .bin, raw). -F and -v are read and have no effect (as
// MIOpen: no backward pass; the reference is this one on either path).
#pragma once

#include <string>

namespace anydnn::driver {

int run_ctc_driver(int argc, const char* const* argv);

}  // namespace anydnn::driver
