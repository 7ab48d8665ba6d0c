// A batch-normalization problem as MIOpenDriver's bnorm flags describe it, shared by the driver
// and the tests (whose problem lists are in driver syntax). Flags and defaults as MIOpen's
// bn_driver (shared/reference/miopen.md §c): -F forw (0 train+backward... see bn_driver.cpp),
// -b back, -n -c -H -W -D, -L/--layout, -m mode (0 per-activation, 1 spatial), -s save,
// -r run, -A alpha, -B beta.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "input_flags.hpp"

namespace anydnn::driver {

struct BnSpec {
  std::string base = "bnorm";
  miopenDataType_t type = miopenFloat;        // x, y, dy, dx
  miopenDataType_t param_type = miopenFloat;  // scale, bias, means, variances
  std::vector<int> lens;                      // N, C, [D,] H, W
  std::string layout = "NCHW";
  miopenBatchNormMode_t mode = miopenBNSpatial;
  int forw = 0;  // 1 training, 2 inference, 0 none (backward only / default)
  bool back = false;
  bool save = false, run = false;
  double alpha = 1.0, beta = 0.0;

  // What runs (MIOpen's main.cpp rules): forward when forw is 1 or 2, or forw == 0 and not
  // back (then training); backward when back. forw and back together: backward is dropped.
  bool forward_training() const { return forw == 1 || (forw == 0 && !back); }
  bool forward_inference() const { return forw == 2; }
  bool backward() const { return back && forw == 0; }
};

// Types of a driver base: bnorm, bnormfp16, bnormfp16fp32, bnormbfp16fp32 (and bnormbfp16,
// the base MIOpen's own log prints for bf16 parameters).
bool bn_base_types(const std::string& base, miopenDataType_t& data, miopenDataType_t& param);

void add_bn_flags(InputFlags& flags);
std::optional<std::string> bn_spec_from_flags(const InputFlags& flags, BnSpec& spec);
std::optional<std::string> parse_bn_line(const std::string& line, BnSpec& spec);
// The problem back as driver arguments (base first; no -i/-V/-t), read by parse_bn_line into
// the same spec.
std::string to_bn_driver_args(const BnSpec& spec);

}  // namespace anydnn::driver
