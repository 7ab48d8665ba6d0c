// MIOpenDriver CBAInfer / CBAInferfp16: MIOpen's fused-inference driver (its
// driver/CBAInferFusion_driver.hpp): flags, defaults, fusion modes (-F: cbna 0, cna 1, na 2,
// cn 3, cba 4, ca 5, cb 6) and output lines, through the fusion-plan API of the public C API,
// verified against the double references (convolution, bias, BN inference with epsilon 1e-3,
// activation) with MIOpen's allowance of 80 epsilons of the type. One difference: the BN
// parameter descriptor is derived from the convolution's output (MIOpen's driver derives it from
// the input, which only works when c equals k).
#pragma once

#include <string>

namespace anydnn::driver {

bool is_cba_base(const std::string& base);
// Returns the process exit code (see conv_driver.hpp: status, kExitVerifyFailed, kExitUsage).
int run_cba_driver(const std::string& base, int argc, const char* const* argv);

}  // namespace anydnn::driver
