#include "activ_spec.hpp"

#include <sstream>

namespace anydnn::driver {

bool activ_base_type(const std::string& base, miopenDataType_t& type) {
  if (base == "activ")
    type = miopenFloat;
  else if (base == "activfp16")
    type = miopenHalf;
  else if (base == "activbfp16")
    type = miopenBFloat16;
  else
    return false;
  return true;
}

void add_activ_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "0", "0: forward and backward, 1: forward only, 2: backward only");
  f.add("batchsize", 'n', "100", "Mini-batch size");
  f.add("in_channels", 'c', "3", "Number of input channels");
  f.add("in_h", 'H', "32", "Input height");
  f.add("in_w", 'W', "32", "Input width");
  f.add("in_d", 'D', "0", "Input depth (> 0: 5-D; anydnn)");
  f.add("layout", 'L', "", "Layout: NCHW, NHWC (NCDHW, NDHWC for 5-D; anydnn)", T::String);
  f.add("mode", 'm', "3", "Activation mode (0 PASTHRU ... 9 ELU; 3 RELU)");
  f.add("alpha", 'A', "1", "Activation alpha", T::String);
  f.add("beta", 'B', "1", "Activation beta", T::String);
  f.add("gamma", 'G', "1", "Activation gamma", T::String);
  f.add("iter", 'i', "10", "Number of iterations");
  f.add("verify", 'V', "1", "Verify against the CPU reference (1)");
  f.add("time", 't', "0", "Time each call (1)");
  f.add("wall", 'w', "0", "Wall-clock time (1, needs -t 1)");
}

std::optional<std::string> activ_spec_from_flags(const InputFlags& f, ActivSpec& s) {
  if (auto err = spatial_tensor_from_flags(f, s.lens, s.layout)) return err;
  const int mode = f.get_int("mode");
  if (mode < miopenActivationPASTHRU || mode > miopenActivationELU)
    return "-m must be an activation mode, 0 to 9";
  s.desc.mode = static_cast<miopenActivationMode_t>(mode);
  s.forw = f.get_int("forw");
  if (s.forw < 0 || s.forw > 2) return "-F must be 0, 1 or 2";
  try {
    s.desc.alpha = std::stod(f.get_str("alpha"));
    s.desc.beta = std::stod(f.get_str("beta"));
    s.desc.gamma = std::stod(f.get_str("gamma"));
  } catch (const std::exception&) {
    return "-A / -B / -G must be numbers";
  }
  return std::nullopt;
}

std::optional<std::string> parse_activ_line(const std::string& line, ActivSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  if (words.empty()) return "no base";
  if (!activ_base_type(words[0], spec.type)) return "unsupported base " + words[0];
  spec.base = words[0];
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_activ_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return activ_spec_from_flags(flags, spec);
}

std::string to_activ_driver_args(const ActivSpec& s) {
  std::ostringstream o;
  const bool d5 = s.lens.size() == 5;
  o << s.base << " -n " << s.lens[0] << " -c " << s.lens[1];
  if (d5) o << " -D " << s.lens[2];
  o << " -H " << s.lens[s.lens.size() - 2] << " -W " << s.lens.back() << " -m "
    << static_cast<int>(s.desc.mode) << " --forw " << s.forw << " -A " << s.desc.alpha << " -B "
    << s.desc.beta << " -G " << s.desc.gamma;
  if (s.layout != "NCHW" && s.layout != "NCDHW") o << " --layout " << s.layout;
  return o.str();
}

}  // namespace anydnn::driver

namespace anydnn::driver {

std::optional<std::string> activ_block_command(bool forward, std::vector<int> lens,
                                               const std::string& layout,
                                               const std::string& activ_desc, std::string* error) {
  auto fail = [&](const std::string& e) -> std::optional<std::string> {
    if (error) *error = e;
    return std::nullopt;
  };
  static const char* const kModes[] = {"miopenActivationPASTHRU",   "miopenActivationLOGISTIC",
                                       "miopenActivationTANH",      "miopenActivationRELU",
                                       "miopenActivationSOFTRELU",  "miopenActivationABS",
                                       "miopenActivationPOWER",     "miopenActivationCLIPPEDRELU",
                                       "miopenActivationLEAKYRELU", "miopenActivationELU"};
  std::vector<std::string> f;
  std::stringstream ss(activ_desc);
  for (std::string t; std::getline(ss, t, ',');) {
    const auto b = t.find_first_not_of(' '), e = t.find_last_not_of(' ');
    if (b != std::string::npos) f.push_back(t.substr(b, e - b + 1));
  }
  if (f.size() < 4) return fail("activDesc '" + activ_desc + "' is not mode, alpha, beta, gamma");
  ActivSpec s;
  int mode = -1;
  for (int m = 0; m < 10; ++m)
    if (f[0] == kModes[m] || f[0] == std::to_string(m)) mode = m;
  if (mode < 0) return fail("unknown activation mode '" + f[0] + "'");
  s.desc.mode = static_cast<miopenActivationMode_t>(mode);
  try {
    s.desc.alpha = std::stod(f[1]);
    s.desc.beta = std::stod(f[2]);
    s.desc.gamma = std::stod(f[3]);
  } catch (const std::exception&) {
    return fail("activDesc parameters are not numbers");
  }
  // LogCmdActivation's reading of other ranks: leading ones up to 4-D.
  if (lens.empty() || lens.size() > 5) return fail("activation tensors have 1 to 5 dimensions");
  const bool own_layout = lens.size() >= 4;
  while (lens.size() < 4)
    lens.insert(lens.begin(), 1);
  s.lens = lens;
  s.layout = own_layout ? layout : (lens.size() == 5 ? "NCDHW" : "NCHW");
  s.forw = forward ? 1 : 2;
  const std::string line = to_activ_driver_args(s);
  ActivSpec check;
  if (auto e = parse_activ_line(line, check)) return fail(*e);
  return line;
}

}  // namespace anydnn::driver
