// A convolution problem as MIOpenDriver's flags describe it, shared by the driver and by the
// tests (whose problem lists are written in driver syntax). Lengths are in logical order:
// input N, C, [D,] H, W; weights K, C/G, ... (or C, K/G, ... for transposed convolutions).
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "input_flags.hpp"

namespace anydnn::driver {

struct ConvSpec {
  std::string base = "conv";
  miopenDataType_t type = miopenFloat;
  int spatial_dims = 2;
  bool transpose = false;
  int groups = 1;
  int forw = 0;  // -F bits; 0 = all three directions
  std::vector<int> in_lens, wei_lens;
  std::vector<int> pads, strides, dilations, trans_output_pads;
  std::string in_layout, fil_layout, out_layout;
  std::string pad_mode = "default";  // -z: same / valid re-derive the pads from the sizes

  // The output tensor's type: int8 convolutions write int32 (MIOpenDriver's convint8).
  miopenDataType_t output_type() const { return type == miopenInt8 ? miopenInt32 : type; }
  bool forward() const { return forw == 0 || (forw & 1); }
  bool backward_data() const { return forw == 0 || (forw & 2); }
  bool backward_weights() const { return forw == 0 || (forw & 4); }
};

// Data type of a driver base ("conv" -> float, "convfp16" -> half, ...), if supported.
std::optional<miopenDataType_t> conv_base_type(const std::string& base);
std::optional<miopenTensorLayout_t> layout_enum(const std::string& layout);

// MIOpenDriver's conv flag table, with its defaults.
void add_conv_flags(InputFlags& flags);

// Checks the flag values and derives the problem (including -z same/valid padding). Fills
// empty layout flags with the default layout. Returns an error message on invalid input.
std::optional<std::string> conv_spec_from_flags(InputFlags& flags, ConvSpec& spec);

// Parses a whole driver line ("conv -n 4 -c 64 ..."), e.g. from a problem list.
std::optional<std::string> parse_conv_line(const std::string& line, ConvSpec& spec);

// The problem back as driver arguments (base first, no -F/-V/-i/-t), a line parse_conv_line
// reads into the same spec.
std::string to_driver_args(const ConvSpec& spec);

}  // namespace anydnn::driver
