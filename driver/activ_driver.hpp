// MIOpenDriver activ / activfp16 (and anydnn's activbfp16): MIOpen's flags, defaults and output
// lines (its driver/activ_driver.hpp), run through the public C API and verified against the
// double reference with MIOpen's per-element rule (80 epsilons of the type, absolute or
// relative). As MIOpen's driver: the API's alpha / beta are 1 / 0, the inputs are drawn away from
// each mode's kinks, dy is uniform in [-0.5, 0.5], and backward's y is the forward output (zeros
// when -F 2 skips the forward pass).
#pragma once

#include <string>

namespace anydnn::driver {

// Returns the process exit code (see conv_driver.hpp: status, kExitVerifyFailed, kExitUsage).
int run_activ_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
