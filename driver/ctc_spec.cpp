#include "ctc_spec.hpp"

#include <algorithm>
#include <sstream>

namespace anydnn::driver {

int CtcSpec::max_time() const {
  return input_lengths.empty() ? 0 : *std::max_element(input_lengths.begin(), input_lengths.end());
}

void add_ctc_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "1", "Run only Forward CTC == 1 (Default=1)");
  f.add("apply_softmax_layer", 'm', "1", "Apply == 1, Not apply == 0 (Default=1)");
  f.add("blank_label_id", 'b', "0", "Index of blank label (Default=0)");
  f.add("input_len", 'k', "20", "Number of time steps in each batch (Default=20)", T::String);
  f.add("label_len", 'l', "5", "Number of labels (Default=5)", T::String);
  f.add("num_class", 'c', "9", "Number of classes without blank (Default=9)");
  f.add("batchsize", 'n', "4", "Mini-batch size (Default=4)");
  f.add("iter", 'i', "1", "Number of Iterations (Default=1)");
  f.add("verify", 'V', "1", "Verify CTC losses and gradients (Default=1)");
  f.add("verify_path", 'v', "1",
        "Verify Path for CTC losses and gradients: fast 1, regular 0 (Default=1)");
  f.add("time", 't', "0", "Time Each Layer (Default=0)");
  f.add("wall", 'w', "0", "Wall-clock Time Each Layer, Requires time == 1 (Default=0)");
  f.add("dump_output", 'o', "0", "Dumps the output buffers (Default=0)");
  f.add("ctcalgo", 'a', "0",
        "MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC or MIOPEN_CTC_LOSS_ALGO_NON_DETERMINISTIC (Default=0)");
}

std::optional<std::string> ctc_lengths(const std::string& text, int batch, std::vector<int>& out) {
  out.assign(batch, 0);
  std::string s = text;
  std::replace(s.begin(), s.end(), ',', ' ');
  std::istringstream ss(s);
  int count = 0;
  for (std::string w; ss >> w && count < batch;) {
    try {
      size_t used = 0;
      out[count] = std::stoi(w, &used);
      if (used != w.size()) return "'" + text + "' is not a list of integers";
    } catch (const std::exception&) {
      return "'" + text + "' is not a list of integers";
    }
    ++count;
  }
  if (count == 0) return "'" + text + "' holds no length";
  for (int i = count; i < batch; ++i)
    out[i] = out[count - 1];
  return std::nullopt;
}

std::optional<std::string> ctc_spec_from_flags(const InputFlags& f, CtcSpec& s) {
  s.batch = f.get_int("batchsize");
  s.num_class = f.get_int("num_class");
  if (s.batch <= 0) return "-n must be positive";
  if (s.num_class <= 0) return "-c must be positive";
  if (auto err = ctc_lengths(f.get_str("label_len"), s.batch, s.label_lengths))
    return "-l: " + *err;
  if (auto err = ctc_lengths(f.get_str("input_len"), s.batch, s.input_lengths))
    return "-k: " + *err;
  if (s.max_time() <= 0) return "-k: the input lengths must be positive";
  s.blank = f.get_int("blank_label_id");
  s.apply_softmax = f.get_int("apply_softmax_layer") == 1;
  s.algo = f.get_int("ctcalgo");
  return std::nullopt;
}

std::optional<std::string> parse_ctc_line(const std::string& line, CtcSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  if (words.empty()) return "no base";
  if (words[0] != "ctc") return "unsupported base " + words[0];
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_ctc_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return ctc_spec_from_flags(flags, spec);
}

std::string to_ctc_driver_args(const CtcSpec& s) {
  auto join = [](const std::vector<int>& v) {
    std::ostringstream o;
    for (size_t i = 0; i < v.size(); ++i)
      o << (i ? "," : "") << v[i];
    return o.str();
  };
  std::ostringstream o;
  o << "ctc -a " << s.algo << " -b " << s.blank << " -c " << s.num_class << " -m "
    << (s.apply_softmax ? 1 : 0) << " -n " << s.batch << " -l " << join(s.label_lengths) << " -k "
    << join(s.input_lengths);
  return o.str();
}

}  // namespace anydnn::driver
