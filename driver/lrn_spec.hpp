// An LRN problem as MIOpenDriver's lrn flags describe it, shared by the driver and the tests
// (whose problem list is in driver syntax). Flags and defaults as MIOpen's lrn_driver:
// -F forw 0 (0: forward then backward, 1: forward, 2: backward), -n 100 -c 3 -H 32 -W 32,
// -N lrnN 5, -A alpha 0.001, -B beta 0.75, -K lrnK 1.0, -m mode within (within | cross; the
// numbers 0 | 1 that MIOpen's LogCmdLRN prints are taken too, so a logged line replays),
// -i iter 10, -V verify 1, -t time 0, -w wall 0, -P printconv 1 (unused). Bases lrn, lrnfp16.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "input_flags.hpp"
#include "lrn_reference.hpp"

namespace anydnn::driver {

struct LrnSpec {
  std::string base = "lrn";
  miopenDataType_t type = miopenFloat;
  std::vector<int> lens;  // N, C, H, W
  ref::LrnDesc desc;
  int forw = 0;

  bool forward() const { return (forw & 1) != 0 || forw == 0; }
  bool backward() const { return forw != 1; }
  // MIOpen's driver keeps the scale (do_backward) when it runs backward: -F 0 or 2.
  bool do_backward() const { return forw == 0 || forw == 2; }
};

bool lrn_base_type(const std::string& base, miopenDataType_t& type);

void add_lrn_flags(InputFlags& flags);
// The error for a mode other than within / cross / 0 / 1 is MIOpen's "Incorrect LRN Mode".
std::optional<std::string> lrn_spec_from_flags(const InputFlags& flags, LrnSpec& spec);
std::optional<std::string> parse_lrn_line(const std::string& line, LrnSpec& spec);
// The problem back as driver arguments in LogCmdLRN's order (base first; no -i/-V/-t).
std::string to_lrn_driver_args(const LrnSpec& spec);

}  // namespace anydnn::driver
