// MIOpenDriver's argument parsing: the input is a command line (whitespace-separated tokens,
// base first). conv / bnorm lines go through the flag table, the spec builders and the
// round trip to driver arguments, which must read back to the same arguments
// (driver/conv_spec.hpp, bn_spec.hpp); lrn lines likewise (lrn_spec.hpp). RNN lines go through
// the flag table and, when every size is tiny, through the RNN drivers themselves (their flag
// checks live in run_*). reduce lines round trip like conv lines (driver/reduce_spec.hpp); pool
// lines go through parse_pool_line and the round trip through to_pool_driver_args. Other
// bases try every parser.
#include <climits>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "bn_spec.hpp"
#include "conv_spec.hpp"
#include "fuzz_common.hpp"
#include "input_flags.hpp"
#include "lrn_spec.hpp"
#include "pool_spec.hpp"
#include "reduce_spec.hpp"
#include "rnn_driver.hpp"

namespace drv = anydnn::driver;

namespace {

void check_conv(const std::string& line) {
  drv::ConvSpec spec;
  if (drv::parse_conv_line(line, spec)) return;
  // The documented round trip: to_driver_args reads back into the same spec.
  const std::string args = drv::to_driver_args(spec);
  drv::ConvSpec again;
  if (const auto err = drv::parse_conv_line(args, again)) {
    fprintf(stderr, "conv round trip failed: '%s' -> '%s': %s\n", line.c_str(), args.c_str(),
            err->c_str());
    __builtin_trap();
  }
  if (drv::to_driver_args(again) != args) {
    fprintf(stderr, "conv round trip differs: '%s' -> '%s'\n", line.c_str(), args.c_str());
    __builtin_trap();
  }
}

void check_bn(const std::string& line) {
  drv::BnSpec spec;
  if (drv::parse_bn_line(line, spec)) return;
  const std::string args = drv::to_bn_driver_args(spec);
  drv::BnSpec again;
  if (const auto err = drv::parse_bn_line(args, again)) {
    fprintf(stderr, "bnorm round trip failed: '%s' -> '%s': %s\n", line.c_str(), args.c_str(),
            err->c_str());
    __builtin_trap();
  }
  if (drv::to_bn_driver_args(again) != args) {
    fprintf(stderr, "bnorm round trip differs: '%s' -> '%s'\n", line.c_str(), args.c_str());
    __builtin_trap();
  }
}

// lrn / lrnfp16 lines (LogCmdLRN's order; doubles printed with 6 digits) read back the same.
void check_lrn(const std::string& line) {
  drv::LrnSpec spec;
  if (drv::parse_lrn_line(line, spec)) return;
  const std::string args = drv::to_lrn_driver_args(spec);
  drv::LrnSpec again;
  if (const auto err = drv::parse_lrn_line(args, again)) {
    fprintf(stderr, "lrn round trip failed: '%s' -> '%s': %s\n", line.c_str(), args.c_str(),
            err->c_str());
    __builtin_trap();
  }
  if (drv::to_lrn_driver_args(again) != args) {
    fprintf(stderr, "lrn round trip differs: '%s' -> '%s'\n", line.c_str(), args.c_str());
    __builtin_trap();
  }
}

void check_pool(const std::string& line) {
  drv::PoolSpec spec;
  if (drv::parse_pool_line(line, spec)) return;
  const std::string args = drv::to_pool_driver_args(spec);
  drv::PoolSpec again;
  if (const auto err = drv::parse_pool_line(args, again)) {
    fprintf(stderr, "pool round trip failed: '%s' -> '%s': %s\n", line.c_str(), args.c_str(),
            err->c_str());
    __builtin_trap();
  }
  if (drv::to_pool_driver_args(again) != args) {
    fprintf(stderr, "pool round trip differs: '%s' -> '%s'\n", line.c_str(), args.c_str());
    __builtin_trap();
  }
}

// Every entry of a comma list is an integer in [lo, hi] (at most `max_items` entries).
bool small_list(const std::string& s, int lo, int hi, size_t max_items) {
  std::stringstream ss(s);
  size_t n = 0;
  for (std::string item; std::getline(ss, item, ',');) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (v < lo || v > hi || ++n > max_items) return false;
  }
  return true;
}

void check_rnn(const std::string& base, const std::vector<const char*>& argv) {
  drv::InputFlags flags;
  drv::add_rnn_flags(flags);
  const bool seq = base.rfind("rnn_seq", 0) == 0;
  if (seq) {
    flags.add("io_layout", 'I', "1", "");
    flags.add("seq_len_array", 'K', "", "", drv::InputFlags::Type::String);
  }
  const int argc = static_cast<int>(argv.size());
  if (flags.parse(argc, argv.data(), 2) || flags.help_requested()) return;
  for (const char* f : {"forw", "num_layer", "seq_len", "bidirection", "hid_h", "in_h", "iter",
                        "verify", "time", "wall", "bias", "inputmode", "rnnalgo", "fwdtype"})
    flags.get_int(f);
  // Run the driver itself only on tiny problems: the point is its flag checks, not the math.
  const auto in = [&](const char* f, int lo, int hi) {
    const int v = flags.get_int(f);
    return v >= lo && v <= hi;
  };
  if (!in("seq_len", -2, 4) || !in("num_layer", -2, 2) || !in("hid_h", -2, 6) ||
      !in("in_h", -2, 6) || !in("iter", -2, 2) || !in("wall", 0, 0) ||
      !small_list(flags.get_str("batchsize"), INT_MIN, 6, 4) ||
      flags.get_str("dropout").size() > 32)
    return;
  if (seq && !small_list(flags.get_str("seq_len_array"), INT_MIN, 6, 6)) return;
  try {
    drv::run_rnn_driver(base, argc, argv.data());
  } catch (const std::exception&) {
    // MIOpenDriver's main catches these (e.g. std::stof of a bad -P) and exits with usage.
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/false);
  return 0;
}

// The LogCmdRedux round trip: a parsed line's arguments read back to the same arguments.
void check_reduce(const std::string& line) {
  drv::ReduceSpec spec;
  if (drv::parse_reduce_line(line, spec)) return;
  const std::string args = drv::to_reduce_driver_args(spec);
  drv::ReduceSpec again;
  if (const auto err = drv::parse_reduce_line(args, again)) {
    fprintf(stderr, "reduce round trip failed: '%s' -> '%s': %s\n", line.c_str(), args.c_str(),
            err->c_str());
    __builtin_trap();
  }
  if (drv::to_reduce_driver_args(again) != args) {
    fprintf(stderr, "reduce round trip differs: '%s' -> '%s'\n", line.c_str(), args.c_str());
    __builtin_trap();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string line(reinterpret_cast<const char*>(data), size);
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  const std::string base = words.empty() ? "" : words[0];

  miopenDataType_t d, p;
  const bool is_conv = drv::conv_base_type(base).has_value();
  const bool is_bn = drv::bn_base_types(base, d, p);
  const bool is_rnn =
      base == "rnn" || base == "rnnfp16" || base == "rnn_seq" || base == "rnn_seqfp16";
  const bool is_pool = drv::pool_base_type(base, d);
  if (is_conv || !(is_bn || is_rnn || is_pool)) check_conv(line);
  if (is_bn || !(is_conv || is_rnn || is_pool)) check_bn(line);
  if (is_rnn) check_rnn(base, argv);
  if (drv::lrn_base_type(base, d)) check_lrn(line);
  check_reduce(line);
  if (is_pool) check_pool(line);

  // The flag tables with any base: parse, then read every flag back.
  drv::InputFlags conv_flags;
  drv::add_conv_flags(conv_flags);
  if (!conv_flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) {
    drv::ConvSpec spec;
    if (!drv::conv_spec_from_flags(conv_flags, spec)) drv::to_driver_args(spec);
  }
  return 0;
}
