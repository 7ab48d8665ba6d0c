// MIOpenDriver lrn / lrnfp16: MIOpen's flags, defaults and output lines (its
// driver/lrn_driver.hpp), run through miopenLRNForward / miopenLRNBackward and verified against
// the double reference with MIOpen's check (rms_range; 1.5e-4 forward, 6e-5 backward; 2e-3 for
// lrnfp16, see lrn_reference.hpp). As MIOpen's driver: x is uniform in [-1, 1), dy is 0.001 *
// uniform(-0.5, 0.5), y and dx start at zero, the workspace (miopenLRNGetWorkSpaceSize bytes) is
// allocated and the scale kept when backward runs (-F 0 or 2), and backward's reference reads the
// library's y and scale; with -F 2 the forward pass is skipped, y stays zero and the scale is
// random (in (0, 1] here: MIOpen's [0, 1) can draw a 0, whose -beta power is infinite). Unlike
// MIOpen's (which always exits 0), a failed check makes the exit code kExitVerifyFailed, and
// "Incorrect LRN Mode" a usage error.
#pragma once

#include <string>

namespace anydnn::driver {

int run_lrn_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
