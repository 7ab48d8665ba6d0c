// A softmax problem as MIOpenDriver's softmax flags describe it, shared by the driver and the
// tests (whose problem list is in driver syntax). Flags and defaults as MIOpen's softmax_driver:
// -F forw (0: forward then backward, 1: forward, 2: backward), -n 100 -c 3 -H 32 -W 32,
// -A alpha 1, -B beta 0, -a algorithm 1 (0 fast, 1 accurate, 2 log), -m mode 1 (0 instance,
// 1 channel), -i iter, -V verify, -t time, -w wall. Bases softmax, softmaxfp16 and anydnn's
// softmaxbfp16.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "input_flags.hpp"
#include "softmax_reference.hpp"

namespace anydnn::driver {

struct SoftmaxSpec {
  std::string base = "softmax";
  miopenDataType_t type = miopenFloat;
  std::vector<int> lens;  // N, C, H, W
  ref::SoftmaxDesc desc;
  float alpha = 1.0f, beta = 0.0f;
  int forw = 0;

  bool forward() const { return (forw & 1) != 0 || forw == 0; }
  bool backward() const { return forw != 1; }
};

bool softmax_base_type(const std::string& base, miopenDataType_t& type);

void add_softmax_flags(InputFlags& flags);
std::optional<std::string> softmax_spec_from_flags(const InputFlags& flags, SoftmaxSpec& spec);
std::optional<std::string> parse_softmax_line(const std::string& line, SoftmaxSpec& spec);
// The problem back as driver arguments in LogCmdSoftmax's order (base first; no -i/-V/-t).
std::string to_softmax_driver_args(const SoftmaxSpec& spec);

}  // namespace anydnn::driver
