// MIOpenDriver bnorm / bnormfp16 / bnormfp16fp32 / bnormbfp16fp32: MIOpen's flags, defaults and
// output lines (shared/reference/miopen.md §c), run through the public C API and verified
// against the double reference. epsilon 1e-3; expAvgFactor 1/(1+i) on iteration i.
#pragma once

#include <string>

namespace anydnn::driver {

// Returns the process exit code (see conv_driver.hpp: status, kExitVerifyFailed, kExitUsage).
int run_bn_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
