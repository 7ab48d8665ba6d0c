// An activation problem as MIOpenDriver's activ flags describe it, shared by the driver and the
// tests (whose problem list is in driver syntax). Flags and defaults as MIOpen's activ_driver:
// -F forw (0: forward then backward, 1: forward, 2: backward), -n -c -H -W, -m mode,
// -A / -B / -G the descriptor's alpha, beta, gamma, -i iter, -V verify, -t time, -w wall.
// anydnn adds -D depth (5-D) and -L / --layout (NHWC, NDHWC), which LogCmdActivation prints for
// such tensors, and the base activbfp16.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "activation_reference.hpp"
#include "input_flags.hpp"

namespace anydnn::driver {

struct ActivSpec {
  std::string base = "activ";
  miopenDataType_t type = miopenFloat;
  std::vector<int> lens;  // N, C, [D,] H, W
  std::string layout = "NCHW";
  ref::ActivationDesc desc;
  int forw = 0;

  // MIOpen's main.cpp: forward when F & 1 or F == 0, backward when F != 1.
  bool forward() const { return (forw & 1) != 0 || forw == 0; }
  bool backward() const { return forw != 1; }
};

// activ (fp32), activfp16, activbfp16.
bool activ_base_type(const std::string& base, miopenDataType_t& type);

void add_activ_flags(InputFlags& flags);
std::optional<std::string> activ_spec_from_flags(const InputFlags& flags, ActivSpec& spec);
std::optional<std::string> parse_activ_line(const std::string& line, ActivSpec& spec);
// The problem back as driver arguments (base first; no -i/-V/-t).
std::string to_activ_driver_args(const ActivSpec& spec);

}  // namespace anydnn::driver

namespace anydnn::driver {

// The command of a logged miopenActivationForward / Backward API-call block (the log decoder's
// part for activation): x's lengths and layout name as decoded from xDesc, and the activDesc
// value as MIOpen and anydnn print it ("miopenActivationRELU, 1, 0.5, 2, "). The block carries
// no data type: fp32 (activ) is assumed. Returns the driver line, or nullopt with *error set.
std::optional<std::string> activ_block_command(bool forward, std::vector<int> lens,
                                               const std::string& layout,
                                               const std::string& activ_desc, std::string* error);

}  // namespace anydnn::driver
