// A pooling problem as MIOpenDriver's pool flags describe it, shared by the driver, the log
// decoder and the tests. Flags and defaults as MIOpen's driver/pool_driver.hpp (the version
// whose LogCmdPooling prints --input): tensors -W/--input (100x3x32x32,NCHW), -D/--dinput,
// -O/--output, -H/--doutput in MIOpen's "NxC[xD]xHxW[,LayoutOrStrides]" form; -F forw 0;
// window -Z 3 -y 3 -x 3, strides -s 1 -v 1 -u 1, pads -o 0 -p 0 -q 0 (depth, height, width),
// -r pad_val 0 (unused, as in MIOpen), -M index_position 0 (mask; 3-D always uses image
// indices), -m max|avg|avg_in, -z default|same|valid, -I miopenIndexUint8..Uint64, -i 10,
// -V 1, -t 0, -w 0, -P 1 (unused, as in MIOpen), -j / -k input files, -l dump folder.
// Bases pool, poolfp16 and anydnn's poolbfp16 (what LogCmdPooling prints for bfloat16).
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "input_flags.hpp"

namespace anydnn::driver {

// One tensor flag: lengths and either a layout ("NHWC") or strides, or neither (packed).
struct PoolTensorArg {
  std::vector<int> lens, strides;
  std::string layout;
  bool empty() const { return lens.empty(); }
  // MIOpen's TensorParameters::FillMissing: what this one leaves empty comes from `o`.
  PoolTensorArg fill_missing(const PoolTensorArg& o) const;
  // The strides the descriptor gets: given ones, the layout's, or packed NC(D)HW.
  std::optional<std::string> resolved_strides(std::vector<int>& out) const;
  std::string text() const;  // back in flag form
};

std::optional<std::string> parse_pool_tensor(const std::string& text, PoolTensorArg& t);

struct PoolSpec {
  std::string base = "pool";
  miopenDataType_t type = miopenFloat;
  PoolTensorArg input, dinput, output, doutput;  // the latter three as given (may be empty)
  miopenPoolingMode_t mode = miopenPoolingMax;
  std::vector<int> lens, pads, strides;  // per spatial dimension
  miopenIndexType_t index_type = miopenIndexUint8;
  int index_position = 0;  // -M as given
  int forw = 0;

  int spatial_dims() const { return static_cast<int>(input.lens.size()) - 2; }
  // MIOpen's driver uses image indices for every 3-D problem, whatever -M says.
  miopenPoolingWorkspaceIndexMode_t index_mode() const {
    return static_cast<miopenPoolingWorkspaceIndexMode_t>(spatial_dims() == 3 ? 1 : index_position);
  }
  // MIOpen's main: forward for -F 0 and odd values, backward for everything but -F 1.
  bool forward() const { return (forw & 1) != 0 || forw == 0; }
  bool backward() const { return forw != 1; }
};

bool pool_base_type(const std::string& base, miopenDataType_t& type);
const char* pool_mode_name(miopenPoolingMode_t m);  // max, avg, avg_in
const char* pool_index_type_name(miopenIndexType_t t);

void add_pool_flags(InputFlags& flags);
std::optional<std::string> pool_spec_from_flags(const InputFlags& flags, PoolSpec& spec);
std::optional<std::string> parse_pool_line(const std::string& line, PoolSpec& spec);
// The problem back as driver arguments in LogCmdPooling's order (base first, no -i/-V/-t);
// the other tensors and -I only where they are not the defaults.
std::string to_pool_driver_args(const PoolSpec& spec);

// A miopenPoolingForward / Backward API-call block as a command (base pool: the trace has no
// data type): x's lengths and strides (as a layout name where they are a packed one, so that
// y follows it), the descriptor's value as the trace prints it ("miopenPoolingMax, 3, 3, 1, 1,
// 2, 2, ", braces accepted), -F 1 for forward and 0 for backward (which needs the forward).
// Index type and mode are not in the trace: the driver's defaults. nullopt and `err` when the
// value does not fit the tensor or the driver would refuse the command.
std::optional<std::string> pool_block_command(bool forward, const std::vector<int>& lens,
                                              const std::vector<int>& strides,
                                              const std::string& desc_value, std::string& err);

}  // namespace anydnn::driver
