// MIOpenDriver softmax / softmaxfp16 (and anydnn's softmaxbfp16): MIOpen's flags, defaults and
// output lines (its driver/softmax_driver.hpp), run through miopenSoftmaxForward_V2 /
// BackwardV2 and verified against the double reference with MIOpen's check (the RMS error over
// the range, 1e-3 for fp32, 5e-2 for 16-bit data). As MIOpen's driver: x is uniform in [0, 1),
// dy is 0.001 * uniform(-0.5, 0.5), y and dx start at zero and backward's y is the forward
// output (zeros when -F 2 skips the forward pass). Unlike MIOpen's (which always exits 0), a
// failed check makes the exit code kExitVerifyFailed.
#pragma once

#include <string>

namespace anydnn::driver {

int run_softmax_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
