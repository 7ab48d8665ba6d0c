// MIOpenDriver tensorop / tensoropfp16: MIOpen's flags, defaults and output lines
// (driver/tensorop_driver.hpp there): -o 0 SetTensor, 1 ScaleTensor (value -v), 2..5 OpTensor
// add / mul / min / max of three n x c x H x W tensors with -A alpha1 -B alpha2 -G beta. Every
// iteration calls the library on the same buffers (so beta and Scale accumulate, as in
// MIOpen's driver), and -V 1 replays the iterations on the double reference, rounding to the
// data type after each. Unlike MIOpen's driver, tensoropfp16 really uses half tensors (MIOpen's
// sets float descriptors) and the reference applies alpha1 / alpha2 (MIOpen's ignores them).
#pragma once

#include <string>

namespace anydnn::driver {

bool is_tensorop_base(const std::string& base);
// Returns the process exit code (see conv_driver.hpp: status, kExitVerifyFailed, kExitUsage).
int run_tensorop_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
