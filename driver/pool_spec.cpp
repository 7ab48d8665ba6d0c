#include "pool_spec.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace anydnn::driver {

namespace {

std::string joined(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

// "2x3x4" -> {2, 3, 4}; every part a non-negative integer of at most 9 digits.
bool parse_dims(const std::string& s, std::vector<int>& out) {
  out.clear();
  std::string cur;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == 'x') {
      if (cur.empty() || cur.size() > 9) return false;
      out.push_back(std::stoi(cur));
      cur.clear();
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      cur += s[i];
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> parse_pool_tensor(const std::string& text, PoolTensorArg& t) {
  t = PoolTensorArg{};
  if (text.empty()) return std::nullopt;
  const size_t comma = text.find(',');
  if (!parse_dims(text.substr(0, comma), t.lens))
    return "tensor '" + text + "' is not NxC[xD]xHxW[,LayoutOrStrides]";
  if (t.lens.size() != 4 && t.lens.size() != 5)
    return "tensor '" + text + "' is not 4-D or 5-D (pooling is 2-D or 3-D)";
  if (comma == std::string::npos) return std::nullopt;
  const std::string rest = text.substr(comma + 1);
  if (rest.find(',') != std::string::npos)
    return "tensor '" + text + "' has too many descriptor parameters";
  if (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]))) {
    if (!parse_dims(rest, t.strides) || t.strides.size() != t.lens.size())
      return "tensor '" + text + "' needs one stride per length";
  } else {
    t.layout = rest;
    std::vector<int> s;
    if (auto err = t.resolved_strides(s)) return err;
  }
  return std::nullopt;
}

PoolTensorArg PoolTensorArg::fill_missing(const PoolTensorArg& o) const {
  PoolTensorArg r;
  r.lens = lens.empty() ? o.lens : lens;
  r.strides = strides.empty() ? o.strides : strides;
  r.layout = layout.empty() ? o.layout : layout;
  return r;
}

// MIOpen's tensor_layout_to_strides: the layout is a permutation of NCHW / NCDHW; its last
// letter has stride 1.
std::optional<std::string> PoolTensorArg::resolved_strides(std::vector<int>& out) const {
  const size_t n = lens.size();
  const std::string def = n == 5 ? "NCDHW" : "NCHW";
  out.assign(n, 1);
  if (!strides.empty()) {
    if (strides.size() != n) return std::string("strides do not match the lengths");
    out = strides;
    return std::nullopt;
  }
  std::string order = layout.empty() ? def : layout;
  std::string sorted = order, want = def;
  std::sort(sorted.begin(), sorted.end());
  std::sort(want.begin(), want.end());
  if (sorted != want)
    return "layout " + order + " does not fit a " + std::to_string(n) + "-D tensor";
  long long acc = 1;
  for (size_t i = n; i-- > 0;) {
    const size_t dim = def.find(order[i]);
    out[dim] = static_cast<int>(acc);
    acc *= lens[dim];
    if (acc > (1LL << 31)) return std::string("tensor too large");
  }
  return std::nullopt;
}

std::string PoolTensorArg::text() const {
  if (lens.empty()) return "";
  std::string s = joined(lens);
  if (!strides.empty()) return s + "," + joined(strides);
  if (!layout.empty()) return s + "," + layout;
  return s;
}

bool pool_base_type(const std::string& base, miopenDataType_t& type) {
  if (base == "pool")
    type = miopenFloat;
  else if (base == "poolfp16")
    type = miopenHalf;
  else if (base == "poolbfp16")
    type = miopenBFloat16;
  else
    return false;
  return true;
}

const char* pool_mode_name(miopenPoolingMode_t m) {
  return m == miopenPoolingMax ? "max" : m == miopenPoolingAverage ? "avg" : "avg_in";
}

const char* pool_index_type_name(miopenIndexType_t t) {
  switch (t) {
    case miopenIndexUint16:
      return "miopenIndexUint16";
    case miopenIndexUint32:
      return "miopenIndexUint32";
    case miopenIndexUint64:
      return "miopenIndexUint64";
    default:
      return "miopenIndexUint8";
  }
}

void add_pool_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("input", 'W', "100x3x32x32,NCHW", "Input tensor: NxC[xD]xHxW[,LayoutOrStrides]", T::String);
  f.add("dinput", 'D', "", "dInput tensor (default: the input's)", T::String);
  f.add("output", 'O', "", "Output tensor (default: from the input and the window)", T::String);
  f.add("doutput", 'H', "", "dOutput tensor (default: the output's)", T::String);
  f.add("forw", 'F', "0", "Run only Forward Pooling (1), both (0), backward (2)");
  f.add("win_d", 'Z', "3", "Window Depth");
  f.add("win_h", 'y', "3", "Window Height");
  f.add("win_w", 'x', "3", "Window Width");
  f.add("pool_stride_d", 's', "1", "Pooling Stride Depth");
  f.add("pool_stride_h", 'v', "1", "Pooling Stride Height");
  f.add("pool_stride_w", 'u', "1", "Pooling Stride Width");
  f.add("pad_d", 'o', "0", "Zero Padding Depth");
  f.add("pad_h", 'p', "0", "Zero Padding Height");
  f.add("pad_w", 'q', "0", "Zero Padding Width");
  f.add("pad_val", 'r', "0", "Padding Value (unused, as in MIOpen)");
  f.add("index_position", 'M', "0", "Image index 1, mask index 0 (3-D: always 1)");
  f.add("iter", 'i', "10", "Number of Iterations");
  f.add("verify", 'V', "1", "Verify Each Layer");
  f.add("time", 't', "0", "Time Each Layer");
  f.add("wall", 'w', "0", "Wall-clock Time Each Layer, Requires time == 1");
  f.add("print", 'P', "1", "Print Pooling Dimensions (unused, as in MIOpen)");
  f.add("mode", 'm', "max", "Pooling Mode (max, avg, avg_in)", T::String);
  f.add("pad_mode", 'z', "default", "Padding Mode (default, valid; same is not supported)",
        T::String);
  f.add("index_type", 'I', "miopenIndexUint8",
        "Index Data Type (miopenIndexUint8, miopenIndexUint16, miopenIndexUint32, "
        "miopenIndexUint64)",
        T::String);
  f.add("in_data", 'j', "", "Input data filename", T::String);
  f.add("out_data", 'k', "", "Output data filename for bwd (dy)", T::String);
  f.add("dump_root", 'l', "", "Directory to dump buffers", T::String);
}

std::optional<std::string> pool_spec_from_flags(const InputFlags& f, PoolSpec& s) {
  if (auto e = parse_pool_tensor(f.get_str("input"), s.input)) return e;
  if (s.input.empty()) return std::string("--input must not be empty");
  for (auto [name, t] : {std::pair{"dinput", &s.dinput}, std::pair{"output", &s.output},
                         std::pair{"doutput", &s.doutput}}) {
    if (auto e = parse_pool_tensor(f.get_str(name), *t)) return e;
    if (!t->empty() && t->lens.size() != s.input.lens.size())
      return std::string("--") + name + " and --input differ in rank";
  }
  for (int v : s.input.lens)
    if (v <= 0) return std::string("input lengths must be positive");
  const bool d3 = s.spatial_dims() == 3;
  auto pick = [&](const char* d, const char* h, const char* w) {
    return d3 ? std::vector<int>{f.get_int(d), f.get_int(h), f.get_int(w)}
              : std::vector<int>{f.get_int(h), f.get_int(w)};
  };
  s.lens = pick("win_d", "win_h", "win_w");
  s.strides = pick("pool_stride_d", "pool_stride_h", "pool_stride_w");
  s.pads = pick("pad_d", "pad_h", "pad_w");
  for (size_t i = 0; i < s.lens.size(); ++i)
    if (s.lens[i] <= 0 || s.strides[i] <= 0 || s.pads[i] < 0)
      return std::string("windows and strides must be positive, pads not negative");
  const std::string& m = f.get_str("mode");
  if (m == "max")
    s.mode = miopenPoolingMax;
  else if (m == "avg")
    s.mode = miopenPoolingAverage;
  else if (m == "avg_in")
    s.mode = miopenPoolingAverageInclusive;
  else
    return "Incorrect Pooling Mode '" + m + "' (max, avg, avg_in)";
  // MIOpen sets the padding mode through its internal descriptor; the public API has none.
  // valid is pads of 0 (the default formula then gives valid's output lengths); same is not.
  const std::string& pm = f.get_str("pad_mode");
  if (pm == "valid")
    std::fill(s.pads.begin(), s.pads.end(), 0);
  else if (pm != "default")
    return "Padding Mode '" + pm + "' is not supported (default, valid)";
  const std::string& it = f.get_str("index_type");
  bool found = false;
  for (auto t : {miopenIndexUint8, miopenIndexUint16, miopenIndexUint32, miopenIndexUint64})
    if (it == pool_index_type_name(t)) s.index_type = t, found = true;
  if (!found) return "Incorrect Index Data Type '" + it + "'";
  s.index_position = f.get_int("index_position");
  if (s.index_position < 0 || s.index_position > 1) return std::string("-M must be 0 or 1");
  s.forw = f.get_int("forw");
  if (s.forw < 0 || s.forw > 2) return std::string("-F must be 0, 1 or 2");
  return std::nullopt;
}

std::optional<std::string> parse_pool_line(const std::string& line, PoolSpec& spec) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  for (std::string w; ss >> w;)
    words.push_back(w);
  if (!words.empty() && (words[0] == "MIOpenDriver" || words[0] == "./bin/MIOpenDriver"))
    words.erase(words.begin());
  if (words.empty()) return std::string("no base");
  if (!pool_base_type(words[0], spec.type)) return "unsupported base " + words[0];
  spec.base = words[0];
  std::vector<const char*> argv = {"MIOpenDriver"};
  for (const auto& w : words)
    argv.push_back(w.c_str());
  InputFlags flags;
  add_pool_flags(flags);
  if (auto err = flags.parse(static_cast<int>(argv.size()), argv.data(), 2)) return err;
  return pool_spec_from_flags(flags, spec);
}

std::string to_pool_driver_args(const PoolSpec& s) {
  const size_t sd = s.lens.size();
  const bool d3 = sd == 3;
  std::ostringstream k;
  k << s.base << " -M " << s.index_position << " --input " << s.input.text();
  if (!s.dinput.empty()) k << " --dinput " << s.dinput.text();
  if (!s.output.empty()) k << " --output " << s.output.text();
  if (!s.doutput.empty()) k << " --doutput " << s.doutput.text();
  if (d3) k << " -Z " << s.lens[0];
  k << " -y " << s.lens[sd - 2] << " -x " << s.lens[sd - 1];
  if (d3) k << " -o " << s.pads[0];
  k << " -p " << s.pads[sd - 2] << " -q " << s.pads[sd - 1];
  if (d3) k << " -s " << s.strides[0];
  k << " -v " << s.strides[sd - 2] << " -u " << s.strides[sd - 1] << " -m "
    << pool_mode_name(s.mode) << " -F " << s.forw;
  if (s.index_type != miopenIndexUint8) k << " -I " << pool_index_type_name(s.index_type);
  return k.str();
}

std::optional<std::string> pool_block_command(bool forward, const std::vector<int>& lens,
                                              const std::vector<int>& strides,
                                              const std::string& desc_value, std::string& err) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : desc_value + ",") {
    if (c == ',') {
      const size_t b = cur.find_first_not_of(" {}"), e = cur.find_last_not_of(" {}");
      if (b != std::string::npos) parts.push_back(cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += c;
    }
  }
  const size_t sd = lens.size() == 5 ? 3 : 2;
  if ((lens.size() != 4 && lens.size() != 5) || parts.size() != 1 + 3 * sd) {
    err = "pooling descriptor '" + desc_value + "' does not fit a " + std::to_string(lens.size()) +
          "-D tensor";
    return std::nullopt;
  }
  PoolSpec s;
  const std::string& m = parts[0];
  if (m == "miopenPoolingMax" || m == "0")
    s.mode = miopenPoolingMax;
  else if (m == "miopenPoolingAverage" || m == "1")
    s.mode = miopenPoolingAverage;
  else if (m == "miopenPoolingAverageInclusive" || m == "Unknown: 2" || m == "2")
    s.mode = miopenPoolingAverageInclusive;
  else {
    err = "unknown pooling mode '" + m + "'";
    return std::nullopt;
  }
  std::vector<int> v;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::vector<int> one;
    if (!parse_dims(parts[i], one) || one.size() != 1) {
      err = "pooling descriptor '" + desc_value + "' has a value that is not a number";
      return std::nullopt;
    }
    v.push_back(one[0]);
  }
  s.lens.assign(v.begin(), v.begin() + sd);
  s.pads.assign(v.begin() + sd, v.begin() + 2 * sd);
  s.strides.assign(v.begin() + 2 * sd, v.end());
  s.input.lens = lens;
  s.input.strides = strides;
  for (const char* layout : {"NCHW", "NHWC", "NCDHW", "NDHWC"}) {
    PoolTensorArg t;
    t.lens = lens;
    t.layout = layout;
    std::vector<int> st;
    if (!t.resolved_strides(st) && st == strides) {
      s.input.strides.clear();
      s.input.layout = layout;
      break;
    }
  }
  s.index_position = sd == 3 ? 1 : 0;
  s.forw = forward ? 1 : 0;
  const std::string line = to_pool_driver_args(s);
  PoolSpec check;
  if (auto e = parse_pool_line(line, check)) {
    err = *e;
    return std::nullopt;
  }
  return line;
}

}  // namespace anydnn::driver
