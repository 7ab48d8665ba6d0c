// MIOpenDriver reduce / reducefp16 / reducefp64 (and anydnn's reducefp, reducebfp16): MIOpen's
// flags, defaults and output lines (its driver/reduce_driver.hpp, flags in reduce_spec.hpp),
// run through miopenReduceTensor with the workspace and indices sizes the API returns, and
// verified against the double reference with MIOpen's check: rms_range of C, tolerance 1.5e-4
// (x4 for half, x32 for bfloat16, x12 for float NORM2), indices exact. As MIOpen's driver: A is
// uniform in [0, 1) (or read from -d), C starts at 0.2, -I 1 with MIN / MAX / AMAX runs alpha 1,
// beta 0, and a blended call (alpha != 1 or beta != 0) is verified on the first call's output.
// Unlike MIOpen's (which always exits 0), a failed check makes the exit code kExitVerifyFailed.
#pragma once

#include <string>

namespace anydnn::driver {

int run_reduce_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
