#include "lrn_spec.hpp"

#include <cstdlib>
#include <sstream>

namespace anydnn::driver {

bool lrn_base_type(const std::string& base, miopenDataType_t& type) {
  if (base == "lrn")
    type = miopenFloat;
  else if (base == "lrnfp16")
    type = miopenHalf;
  else
    return false;
  return true;
}

void add_lrn_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "0", "Run only Forward LRN Normalization (Default=0)");
  f.add("batchsize", 'n', "100", "Mini-batch size (Default=100)");
  f.add("in_channels", 'c', "3", "Number of Input Channels (Default=3)");
  f.add("in_h", 'H', "32", "Input Height (Default=32)");
  f.add("in_w", 'W', "32", "Input Width (Default=32)");
  f.add("lrnN", 'N', "5", " lrnN (Default=5)");
  f.add("alpha", 'A', "0.001", "lrn Alpha (Default=0.001)", T::String);
  f.add("beta", 'B', "0.75", "lrn Beta (Default=0.75)", T::String);
  f.add("lrnK", 'K', "1.0", "lrnK (Default=1.0)", T::String);
  f.add("iter", 'i', "10", "Number of Iterations (Default=10)");
  f.add("verify", 'V', "1", "Verify Each Layer (Default=1)");
  f.add("time", 't', "0", "Time Each Layer (Default=0)");
  f.add("wall", 'w', "0", "Wall-clock Time Each Layer, Requires time == 1 (Default=0)");
  f.add("printconv", 'P', "1", "Print Convolution Dimensions (Default=1)");
  f.add("mode", 'm', "within", "LRN Mode (within_channel or cross_channel) (Default=within)",
        T::String);
}

std::optional<std::string> lrn_spec_from_flags(const InputFlags& f, LrnSpec& s) {
  const int n = f.get_int("batchsize"), c = f.get_int("in_channels"), h = f.get_int("in_h"),
            w = f.get_int("in_w");
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0) return "sizes must be positive";
  s.lens = {n, c, h, w};
  const std::string& m = f.get_str("mode");
  if (m == "within" || m == "0")
    s.desc.mode = miopenLRNWithinChannel;
  else if (m == "cross" || m == "1")
    s.desc.mode = miopenLRNCrossChannel;
  else
    return "Incorrect LRN Mode";
  const int lrn_n = f.get_int("lrnN");
  if (lrn_n < 1) return "-N must be at least 1";
  s.desc.n = static_cast<unsigned>(lrn_n);
  s.forw = f.get_int("forw");
  if (s.forw < 0 || s.forw > 2) return "-F must be 0, 1 or 2";
  // strtod, not stod: a value whose 6-digit print (LogCmdLRN's) is subnormal must read back.
  for (auto [name, out] : {std::pair{"alpha", &s.desc.alpha}, std::pair{"beta", &s.desc.beta},
                           std::pair{"lrnK", &s.desc.k}}) {
    const std::string& v = f.get_str(name);
    char* end = nullptr;
    *out = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size()) return "-A / -B / -K must be numbers";
  }
  return std::nullopt;
}

std::optional<std::string> parse_lrn_line(const std::string& line, LrnSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  if (words.empty()) return "no base";
  if (!lrn_base_type(words[0], spec.type)) return "unsupported base " + words[0];
  spec.base = words[0];
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_lrn_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return lrn_spec_from_flags(flags, spec);
}

std::string to_lrn_driver_args(const LrnSpec& s) {
  std::ostringstream o;
  o << s.base << " -A " << s.desc.alpha << " -B " << s.desc.beta << " -F " << s.forw << " -H "
    << s.lens[2] << " -K " << s.desc.k << " -N " << s.desc.n << " -W " << s.lens[3] << " -c "
    << s.lens[1] << " -m " << static_cast<int>(s.desc.mode) << " -n " << s.lens[0];
  return o.str();
}

}  // namespace anydnn::driver
