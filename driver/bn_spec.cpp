#include "bn_spec.hpp"

#include <sstream>

namespace anydnn::driver {

bool bn_base_types(const std::string& base, miopenDataType_t& data, miopenDataType_t& param) {
  if (base == "bnorm") {
    data = param = miopenFloat;
  } else if (base == "bnormfp16") {
    data = param = miopenHalf;
  } else if (base == "bnormfp16fp32") {
    data = miopenHalf;
    param = miopenFloat;
  } else if (base == "bnormbfp16fp32") {
    data = miopenBFloat16;
    param = miopenFloat;
  } else if (base == "bnormbfp16") {
    data = param = miopenBFloat16;
  } else {
    return false;
  }
  return true;
}

void add_bn_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "0", "Forward: 1 training, 2 inference (0: training unless -b 1)");
  f.add("back", 'b', "0", "Backward propagation (1)");
  f.add("batchsize", 'n', "32", "Mini-batch size");
  f.add("in_channels", 'c', "3", "Number of input channels");
  f.add("in_h", 'H', "32", "Input height");
  f.add("in_w", 'W', "32", "Input width");
  f.add("in_d", 'D', "0", "Input depth (> 0: 5-D)");
  f.add("layout", 'L', "", "Layout: NCHW, NHWC (NCDHW, NDHWC for 5-D)", T::String);
  f.add("alpha", 'A', "1.0", "Alpha", T::String);
  f.add("beta", 'B', "0.", "Beta", T::String);
  f.add("iter", 'i', "1", "Number of iterations");
  f.add("verify", 'V', "1", "Verify against the CPU reference (1)");
  f.add("time", 't', "0", "Time each call (1)");
  f.add("printconv", 'P', "1", "Print the problem (unused)");
  f.add("mode", 'm', "0", "0 per-activation, 1 spatial");
  f.add("save", 's', "0", "Save mean and inverse variance (1); backward uses them");
  f.add("run", 'r', "0", "Update running statistics (1); inference uses them");
  f.add("wall", 'w', "0", "Wall-clock time (1, needs -t 1)");
}

std::optional<std::string> bn_spec_from_flags(const InputFlags& f, BnSpec& s) {
  if (auto err = spatial_tensor_from_flags(f, s.lens, s.layout)) return err;
  const int mode = f.get_int("mode");
  if (mode != 0 && mode != 1) return "-m must be 0 (per-activation) or 1 (spatial)";
  s.mode = static_cast<miopenBatchNormMode_t>(mode);
  s.forw = f.get_int("forw");
  if (s.forw < 0 || s.forw > 2) return "-F must be 0, 1 or 2";
  s.back = f.get_int("back") != 0;
  s.save = f.get_int("save") != 0;
  s.run = f.get_int("run") != 0;
  try {
    s.alpha = std::stod(f.get_str("alpha"));
    s.beta = std::stod(f.get_str("beta"));
  } catch (const std::exception&) {
    return "-A / -B must be numbers";
  }
  return std::nullopt;
}

std::optional<std::string> parse_bn_line(const std::string& line, BnSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  if (words.empty()) return "no base";
  if (!bn_base_types(words[0], spec.type, spec.param_type)) return "unsupported base " + words[0];
  spec.base = words[0];
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_bn_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return bn_spec_from_flags(flags, spec);
}

std::string to_bn_driver_args(const BnSpec& s) {
  std::ostringstream o;
  const bool d5 = s.lens.size() == 5;
  o << s.base << " -n " << s.lens[0] << " -c " << s.lens[1];
  if (d5) o << " -D " << s.lens[2];
  o << " -H " << s.lens[s.lens.size() - 2] << " -W " << s.lens.back() << " -m "
    << static_cast<int>(s.mode) << " --forw " << s.forw << " -b " << (s.back ? 1 : 0);
  if (s.save) o << " -s 1";
  if (s.run) o << " -r 1";
  o << " --layout " << s.layout;
  if (s.alpha != 1.0) o << " -A " << s.alpha;
  if (s.beta != 0.0) o << " -B " << s.beta;
  return o.str();
}

}  // namespace anydnn::driver
