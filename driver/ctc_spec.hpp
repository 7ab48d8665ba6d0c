// A CTC loss problem as MIOpenDriver's ctc flags describe it, shared by the driver and the tests
// (whose problem list is in driver syntax). Flags and defaults as MIOpen's driver/ctc_driver.hpp:
// -F forw 1, -m apply_softmax_layer 1, -b blank_label_id 0, -k input_len 20 and -l label_len 5
// (comma-separated per batch element; missing ones repeat the last, extra ones are ignored),
// -c num_class 9 (without the blank: tensors have c + 1 classes), -n batchsize 4, -i iter 1,
// -V verify 1, -v verify_path 1, -t time 0, -w wall 0, -o dump_output 0, -a ctcalgo 0.
// The time steps are the longest input length, as MIOpen's driver sets them.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "input_flags.hpp"

namespace anydnn::driver {

struct CtcSpec {
  int batch = 4;
  int num_class = 9;  // without the blank
  std::vector<int> label_lengths, input_lengths;
  int blank = 0;
  bool apply_softmax = true;
  int algo = 0;
  int max_time() const;
  int classes() const { return num_class + 1; }
};

void add_ctc_flags(InputFlags& flags);
std::optional<std::string> ctc_spec_from_flags(const InputFlags& flags, CtcSpec& spec);
std::optional<std::string> parse_ctc_line(const std::string& line, CtcSpec& spec);
// MIOpen's GetInputLengthsFromCmdLine: up to `batch` integers separated by ',' or ' ', padded
// with the last one.
std::optional<std::string> ctc_lengths(const std::string& text, int batch, std::vector<int>& out);
// The problem back as driver arguments in miopenCTCLoss's logged order (no -i/-V/-t).
std::string to_ctc_driver_args(const CtcSpec& spec);

}  // namespace anydnn::driver
