#include "reduce_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

namespace anydnn::driver {

namespace {

// MIOpen's GetInputTensorLengthsFromCmdLine: comma-separated integers (std::stoi each).
std::optional<std::string> parse_list(const std::string& s, const char* flag,
                                      std::vector<int>& out) {
  out.clear();
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');) {
    size_t used = 0;
    try {
      out.push_back(std::stoi(t, &used));
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != t.size())
      return std::string(flag) + " must be comma-separated integers, got '" + s + "'";
  }
  if (out.empty()) return std::string(flag) + " is empty";
  return std::nullopt;
}

// The integer after `key` in `s` (spaces and ':' skipped); false when absent.
bool int_after(const std::string& s, const std::string& key, int& v) {
  const size_t k = s.find(key);
  if (k == std::string::npos) return false;
  size_t i = k + key.size();
  while (i < s.size() && (s[i] == ' ' || s[i] == ':'))
    ++i;
  size_t j = i;
  if (j < s.size() && s[j] == '-') ++j;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
    ++j;
  // from_chars, not stoi: a lone '-' or a value past int's range is "not readable", not a throw
  // out of the decoder (the log-decoder fuzz harness found the lone '-').
  const auto [end, ec] = std::from_chars(s.data() + i, s.data() + j, v);
  return j > i && ec == std::errc() && end == s.data() + j;
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::vector<int> ReduceSpec::out_lens() const {
  std::vector<int> out = lens;
  for (int d : red)
    out[static_cast<size_t>(d)] = 1;
  return out;
}

bool reduce_base_type(const std::string& base, miopenDataType_t& type) {
  if (base == "reduce" || base == "reducefp")
    type = miopenFloat;
  else if (base == "reducefp16")
    type = miopenHalf;
  else if (base == "reducefp64")
    type = miopenDouble;
  else if (base == "reducebfp16")
    type = miopenBFloat16;
  else
    return false;
  return true;
}

void add_reduce_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("forw", 'F', "1", "Run only Forward (Default=1)");
  f.add("DimLengths", 'D', "100,60,16,240", "The dimensional lengths of the input tensor",
        T::String);
  f.add("DimsToReduce", 'R', "0,2", "The indices of the dimensions to be reduced", T::String);
  f.add("ReduceOp", 'O', "0,2",
        "Reduction Operation Type (check the enum miopenReduceTensorOp_t in miopen.h) "
        "(Default=0 to represent Add of two values)");
  f.add("CompType", 'C', "1",
        "The computation type of the Reduce operation (check the enum miopenDataType_t in "
        "miopen.h) (Default=1(Float)");
  f.add("NanPropagation", 'N', "0",
        "Nan number propagation mode (check the miopenNanPropagation_t in miopen.h) (Default=0 "
        "to indicate no Nan propagation)");
  f.add("IndicesUsed", 'I', "0,1",
        "whether indices of the reduced values are outputed when Min/Max operation is used "
        "(Default=0 to indicate no indices outputed)");
  f.add("alpha", 'A', "1.0", "Scale factor for input tensor", T::String);
  f.add("beta", 'B', "0.0", "Scale factor for output tensor", T::String);
  f.add("wall", 'w', "0", "Wall-clock Time Each Layer, Requires time == 1 (Default=0)");
  f.add("iter", 'i', "1", "Number of Iterations (Default=1)");
  f.add("verify", 'V', "1", "Verify Each Layer (Default=1)");
  f.add("time", 't', "0", "Time Each Layer (Default=0)");
  f.add("dump_output", 'o', "0", "Dumps the output buffers (Default=0)");
  f.add("in_data", 'd', "", "Input data filename (Default=)", T::String);
}

std::optional<std::string> reduce_spec_from_flags(const InputFlags& f, ReduceSpec& s) {
  if (auto e = parse_list(f.get_str("DimLengths"), "-D", s.lens)) return e;
  if (auto e = parse_list(f.get_str("DimsToReduce"), "-R", s.red)) return e;
  if (s.lens.size() > 6)
    return "-D has " + std::to_string(s.lens.size()) + " dimensions (at most 6)";
  if (std::any_of(s.lens.begin(), s.lens.end(), [](int x) { return x <= 0; }))
    return "-D lengths must be positive";
  if (s.red.size() > s.lens.size()) return "-R names more dimensions than -D has";
  for (int d : s.red)
    if (d < 0 || d >= static_cast<int>(s.lens.size()))
      return "-R dimension " + std::to_string(d) + " is not a dimension of -D";
  s.op = f.get_int("ReduceOp");
  s.comp = f.get_int("CompType");
  s.nan = f.get_int("NanPropagation");
  s.indices = f.get_int("IndicesUsed");
  if (s.op < 0 || s.op > 7) return "-O must be a miopenReduceTensorOp_t, 0 to 7";
  if (s.nan < 0 || s.nan > 1) return "-N must be 0 or 1";
  if (s.indices < 0 || s.indices > 1) return "-I must be 0 or 1";
  // MIOpen's reducefp64 computes in double whatever -C says.
  if (s.type == miopenDouble) s.comp = miopenDouble;
  try {
    s.alpha = std::stod(f.get_str("alpha"));
    s.beta = std::stod(f.get_str("beta"));
  } catch (const std::exception&) {
    return "-A / -B must be numbers";
  }
  return std::nullopt;
}

std::optional<std::string> parse_reduce_line(const std::string& line, ReduceSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  if (words.empty()) return "no base";
  if (!reduce_base_type(words[0], spec.type)) return "unsupported base " + words[0];
  spec.base = words[0];
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_reduce_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return reduce_spec_from_flags(flags, spec);
}

std::string to_reduce_driver_args(const ReduceSpec& s) {
  std::vector<int> ones;
  const auto c = s.out_lens();
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i] == 1) ones.push_back(static_cast<int>(i));
  // MIOpen streams alpha and beta as floats with default formatting ("1", "0.5").
  std::ostringstream o;
  o << s.base << " -A " << static_cast<float>(s.alpha) << " -B " << static_cast<float>(s.beta)
    << " -C " << s.comp << " -D " << join(s.lens) << " -I " << s.indices << " -N " << s.nan
    << " -O " << s.op << " -R " << join(ones);
  return o.str();
}

std::optional<std::string> reduce_block_command(const std::vector<int>& a_lens,
                                                const std::vector<int>& c_lens,
                                                const std::string& desc_value, std::string* error) {
  auto fail = [&](const std::string& e) -> std::optional<std::string> {
    if (error) *error = e;
    return std::nullopt;
  };
  if (a_lens.empty() || a_lens.size() != c_lens.size())
    return fail("aDesc and cDesc have different ranks");
  ReduceSpec s;
  s.lens = a_lens;
  for (size_t i = 0; i < c_lens.size(); ++i) {
    if (c_lens[i] != 1 && c_lens[i] != a_lens[i]) return fail("cDesc does not fit aDesc");
    if (c_lens[i] == 1) s.red.push_back(static_cast<int>(i));
  }
  if (s.red.empty()) return fail("cDesc reduces no dimension");
  const bool ours = int_after(desc_value, "{op", s.op);
  const bool ok = ours ? int_after(desc_value, "compType", s.comp) &&
                             int_after(desc_value, "nanOpt", s.nan) &&
                             int_after(desc_value, ", indices ", s.indices)
                       : int_after(desc_value, "Reduction Operation Type", s.op) &&
                             int_after(desc_value, "Reduction CompType", s.comp) &&
                             int_after(desc_value, "NanPropagation Option", s.nan) &&
                             int_after(desc_value, "Indices Option", s.indices);
  if (!ok) return fail("reduceTensorDesc '" + desc_value + "' is not readable");
  const std::string line = to_reduce_driver_args(s);
  ReduceSpec check;
  if (auto e = parse_reduce_line(line, check)) return fail(*e);
  return line;
}

}  // namespace anydnn::driver
