// MIOpenDriver pool / poolfp16 (and anydnn's poolbfp16): MIOpen's flags, defaults and output
// lines (its driver/pool_driver.hpp), run through miopenPoolingForward / Backward and verified
// against the double reference (reference/pooling_reference.hpp) as MIOpen's host check does:
// every output within 1e-5 (fp32) / 5e-3 (fp16; bf16 1e-2) with windows that saw no element
// counted as 0, the saved indices equal to the host's, dx within 1e-6 / 5e-3 (bf16 1e-2). As
// MIOpen's driver: x is uniform in [0, 1), dy is 0.001 * uniform(-0.5, 0.5), alpha 1, beta 0,
// one untimed call before the -i timed ones, indices saved unless -F 1, the kernel-time line
// shows the last call. Differences: -F 2 runs one untimed forward first so that max pooling's
// backward reads real indices (MIOpen's reads a zeroed workspace); -z same is refused (the
// public API has no padding mode); a failed check makes the exit code kExitVerifyFailed.
#pragma once

#include <string>

namespace anydnn::driver {

int run_pool_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
