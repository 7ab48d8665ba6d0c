// Turns MIOpen / anydnn log text into MIOpenDriver command lines (seed 002's manual procedure,
// automated). Reads, in any mix and with lines of several threads interleaved:
//  - command lines: `Command [LogCmdConvolution|LogCmdFindConvolution|LogCmdBNorm|LogCmdRNN|
//    LogCmdActivation] ./bin/MIOpenDriver ...`, `LogCmdTensorOp] ./bin/MIOpenDriver ...` and the
//    bare `MIOpenDriver ...` echoes (MIOpen prints RNN commands on stdout too);
//  - API-call blocks `miopenStatus_t miopenConvolutionForward(...){ ... }` for the convolution,
//    batch-norm, activation and tensor-op (OpTensor, SetTensor, ScaleTensor) calls, in MIOpen's
//    current format (`xDesc = {lens}, {strides}, packed, `, `activDesc = miopenActivationRELU, 1,
//    0, 1, `) and the 2018 one of seed 002 (`xDesc = 100, 3, 32, 32`, `convDesc = p, q, u, v, l,
//    j, `).
// MIOpen's quirks are undone: its LogCmdBNorm swaps -s and -r (lines tagged MIOpen(HIP) or
// MIOpen(OpenCL), or untagged, are swapped back; MIOpen(CPU|CUDA) lines are anydnn's and
// already mean what the driver means); the `-t 1` of its RNN lines is dropped with every other
// timing flag. Anything unreadable is skipped with a warning; nothing throws.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace anydnn::driver {

struct DecodedCommand {
  std::string command;    // "conv -n 100 -c 3 ..." (no timing / verification flags)
  size_t count = 0;       // occurrences
  size_t first_line = 0;  // 1-based line of the first occurrence
};

struct DecodeResult {
  std::vector<DecodedCommand> commands;  // in order of first occurrence
  std::vector<std::string> warnings;     // "line N: reason"
};

enum class LogSource { Auto, MIOpen, Anydnn };

// A Find 2.0 convolution problem as the API trace prints it (miopenFindSolutions' problem) ->
// "conv ... -F <1|2|4>", or empty with the reason in err (log_decoder_find2.cpp).
std::string find2_conv_command(const std::string& problem, std::string& err);

class LogDecoder {
 public:
  explicit LogDecoder(LogSource source = LogSource::Auto) : source_(source) {}
  void feed_line(std::string_view line);
  void feed_text(std::string_view text);  // splits on newlines
  // Counts per command. API blocks of a family (conv, bnorm) are left out when command lines
  // of that family were seen: MIOpen logs both for the same call when both logs are on.
  DecodeResult finish() const;

 private:
  struct Block {
    std::string function;
    std::map<std::string, std::string> args;
    std::string last;  // the latest argument: MIOpen's multi-line values continue it
    size_t line = 0;
  };
  struct Entry {
    size_t block_count = 0, command_count = 0, first_line = 0;
    std::string family;
  };
  void add(const std::string& command, bool from_block, size_t line);
  void close_block(const Block& b);
  void warn(size_t line, const std::string& what);

  LogSource source_;
  size_t line_no_ = 0;
  std::map<std::string, Block> open_;  // by thread prefix
  std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;
  std::set<std::string> families_with_commands_;
  std::vector<std::string> warnings_;
};

// The command line of one log line's MIOpenDriver command, normalised (timing flags dropped,
// MIOpen's BN swap undone when `miopen_bn_swap`); empty when the line holds none.
std::string decode_command_line(std::string_view line, bool miopen_bn_swap, std::string* error);

}  // namespace anydnn::driver
