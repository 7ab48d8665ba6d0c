#include "softmax_spec.hpp"

#include <sstream>

namespace anydnn::driver {

bool softmax_base_type(const std::string& base, miopenDataType_t& type) {
  if (base == "softmax")
    type = miopenFloat;
  else if (base == "softmaxfp16")
    type = miopenHalf;
  else if (base == "softmaxbfp16")
    type = miopenBFloat16;
  else
    return false;
  return true;
}

void add_softmax_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "0", "0: forward and backward, 1: forward only, 2: backward only");
  f.add("batchsize", 'n', "100", "Mini-batch size");
  f.add("in_channels", 'c', "3", "Number of input channels");
  f.add("in_h", 'H', "32", "Input height");
  f.add("in_w", 'W', "32", "Input width");
  f.add("alpha", 'A', "1.0", "Softmax alpha (output scale)", T::String);
  f.add("beta", 'B', "0.0", "Softmax beta (prior output scale)", T::String);
  f.add("algorithm", 'a', "1", "Softmax algorithm: fast (0), accurate (1), logsoftmax (2)");
  f.add("mode", 'm', "1", "Instance mode (0), channel mode (1)");
  f.add("iter", 'i', "10", "Number of iterations");
  f.add("verify", 'V', "1", "Verify against the CPU reference (1)");
  f.add("time", 't', "0", "Time each call (1)");
  f.add("wall", 'w', "0", "Wall-clock time (1, needs -t 1)");
}

std::optional<std::string> softmax_spec_from_flags(const InputFlags& f, SoftmaxSpec& s) {
  const int n = f.get_int("batchsize"), c = f.get_int("in_channels"), h = f.get_int("in_h"),
            w = f.get_int("in_w");
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0) return "sizes must be positive";
  s.lens = {n, c, h, w};
  const int a = f.get_int("algorithm"), m = f.get_int("mode");
  if (a < 0 || a > 2) return "-a must be a softmax algorithm, 0 to 2";
  if (m < 0 || m > 1) return "-m must be a softmax mode, 0 or 1";
  s.desc.algorithm = static_cast<miopenSoftmaxAlgorithm_t>(a);
  s.desc.mode = static_cast<miopenSoftmaxMode_t>(m);
  s.forw = f.get_int("forw");
  if (s.forw < 0 || s.forw > 2) return "-F must be 0, 1 or 2";
  try {
    s.alpha = std::stof(f.get_str("alpha"));
    s.beta = std::stof(f.get_str("beta"));
  } catch (const std::exception&) {
    return "-A / -B must be numbers";
  }
  return std::nullopt;
}

std::optional<std::string> parse_softmax_line(const std::string& line, SoftmaxSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  if (words.empty()) return "no base";
  if (!softmax_base_type(words[0], spec.type)) return "unsupported base " + words[0];
  spec.base = words[0];
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_softmax_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return softmax_spec_from_flags(flags, spec);
}

std::string to_softmax_driver_args(const SoftmaxSpec& s) {
  std::ostringstream o;
  o << s.base << " -n " << s.lens[0] << " -c " << s.lens[1] << " -H " << s.lens[2] << " -W "
    << s.lens[3] << " -F " << s.forw << " -a " << static_cast<int>(s.desc.algorithm) << " -m "
    << static_cast<int>(s.desc.mode) << " -A " << std::to_string(s.alpha) << " -B "
    << std::to_string(s.beta);
  return o.str();
}

}  // namespace anydnn::driver
