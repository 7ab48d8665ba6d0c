#include "log_decoder.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <sstream>

#include "activ_spec.hpp"
#include "bn_spec.hpp"
#include "conv_spec.hpp"
#include "ctc_spec.hpp"
#include "lrn_spec.hpp"
#include "pool_spec.hpp"
#include "reduce_spec.hpp"
#include "softmax_spec.hpp"

namespace anydnn::driver {

namespace {

constexpr size_t kMaxLine = 1 << 16;  // longer lines are not log lines

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream is{std::string(s)};
  for (std::string w; is >> w;)
    out.push_back(w);
  return out;
}

// `[pid:0xthread] MIOpen(HIP) 12.345: body`: the thread part (the key that keeps interleaved
// blocks apart), the backend tag and the body; untagged lines are all body.
struct Prefixed {
  std::string thread, backend;
  std::string_view body;
  bool tagged = false;
};

Prefixed split_prefix(std::string_view line) {
  Prefixed p;
  std::string_view s = line;
  if (!s.empty() && s.front() == '[') {
    const size_t close = s.find("] ");
    if (close != std::string_view::npos && close < 64) {
      p.thread = std::string(s.substr(0, close + 1));
      s.remove_prefix(close + 2);
    }
  }
  if (s.substr(0, 7) == "MIOpen(") {
    const size_t close = s.find(')');
    if (close != std::string_view::npos && close < 32) {
      size_t i = close + 1;
      while (i < s.size() &&
             (s[i] == ' ' || s[i] == '.' || std::isdigit(static_cast<unsigned char>(s[i]))))
        ++i;
      if (i < s.size() && s[i] == ':') {
        p.backend = std::string(s.substr(7, close - 7));
        p.tagged = true;
        s.remove_prefix(std::min(s.size(), i + 1));
        if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      }
    }
  }
  p.body = s;
  return p;
}

std::string family_of(const std::string& base) {
  if (base.rfind("conv", 0) == 0) return "conv";
  if (base.rfind("bnorm", 0) == 0) return "bnorm";
  if (base.rfind("activ", 0) == 0) return "activ";
  if (base.rfind("tensorop", 0) == 0) return "tensorop";
  if (base.rfind("softmax", 0) == 0) return "softmax";
  if (base == "lrn" || base == "lrnfp16") return "lrn";
  if (base.rfind("reduce", 0) == 0) return "reduce";
  if (base.rfind("pool", 0) == 0) return "pool";
  if (base == "ctc") return "ctc";
  if (base.rfind("CBAInfer", 0) == 0) return "CBAInfer";
  return "rnn";
}

bool known_base(const std::string& b) {
  static const char* bases[] = {
      "conv",         "convfp16",      "convbfp16",      "convint8",    "bnorm",
      "bnormfp16",    "bnormfp16fp32", "bnormbfp16fp32", "bnormbfp16",  "rnn",
      "rnnfp16",      "rnn_seq",       "rnn_seqfp16",    "activ",       "activfp16",
      "activbfp16",   "tensorop",      "tensoropfp16",   "softmax",     "softmaxfp16",
      "softmaxbfp16", "lrn",           "lrnfp16",        "reduce",      "reducefp",
      "reducefp16",   "reducefp64",    "reducebfp16",    "pool",        "poolfp16",
      "poolbfp16",    "ctc",           "CBAInfer",       "CBAInferfp16"};
  return std::find(std::begin(bases), std::end(bases), b) != std::end(bases);
}

bool safe_token(const std::string& t) {
  return std::all_of(t.begin(), t.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == ',' || c == ':' || c == '+';
  });
}

// Drops the flags that only say how to run (time, verify, iterations, wall clock, warm-up).
std::vector<std::string> drop_run_flags(const std::vector<std::string>& args) {
  static const char* drop[] = {"-t", "--time", "-V", "--verify", "-i", "--iter", "-w", "--wall"};
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::find(std::begin(drop), std::end(drop), args[i]) != std::end(drop)) {
      if (i + 1 < args.size() && !(args[i + 1].size() > 1 && args[i + 1][0] == '-' &&
                                   std::isalpha(static_cast<unsigned char>(args[i + 1][1]))))
        ++i;  // its value
      continue;
    }
    out.push_back(args[i]);
  }
  return out;
}

std::string join(const std::vector<std::string>& w) {
  std::string s;
  for (const auto& x : w)
    s += (s.empty() ? "" : " ") + x;
  return s;
}

// ---- API-call block values ---------------------------------------------------------------

// "{1, 2, 3}" or "1, 2, 3" -> ints; false on anything else.
bool parse_int_list(std::string_view s, std::vector<int>& out) {
  out.clear();
  s = trim(s);
  if (!s.empty() && s.front() == '{') {
    if (s.back() != '}') return false;
    s = s.substr(1, s.size() - 2);
  }
  std::string cur;
  auto flush = [&]() {
    const std::string t(trim(cur));
    cur.clear();
    if (t.empty()) return true;
    if (t.size() > 10) return false;
    long v = 0;
    for (char c : t) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      v = v * 10 + (c - '0');
    }
    out.push_back(static_cast<int>(v));
    return true;
  };
  for (char c : s) {
    if (c == ',') {
      if (!flush()) return false;
    } else {
      cur += c;
    }
  }
  return flush();
}

// Top-level comma-separated fields, braces kept together: "a, {1, 2}, b, " -> a | {1, 2} | b.
std::vector<std::string> fields(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '{') ++depth;
    if (c == '}') --depth;
    if (c == ',' && depth == 0) {
      const std::string t(trim(cur));
      if (!t.empty()) out.push_back(t);
      cur.clear();
    } else {
      cur += c;
    }
  }
  const auto t = trim(cur);
  if (!t.empty()) out.emplace_back(t);
  return out;
}

struct TensorValue {
  std::vector<int> lens, strides;
};

bool parse_tensor(const std::string& v, TensorValue& t, std::string& err, size_t min_rank = 4,
                  size_t max_rank = 5) {
  const std::string_view s = trim(v);
  if (!s.empty() && s.front() == '{') {
    const auto f = fields(s);
    if (f.size() < 2 || !parse_int_list(f[0], t.lens) || !parse_int_list(f[1], t.strides) ||
        t.lens.size() != t.strides.size()) {
      err = "tensor value '" + v + "' is not {lens}, {strides}, ...";
      return false;
    }
  } else if (!parse_int_list(s, t.lens)) {  // 2018 format: lengths only
    err = "tensor value '" + v + "' is not a list of lengths";
    return false;
  }
  if (t.lens.size() < min_rank || t.lens.size() > max_rank) {
    err = "tensor value '" + v + "' is not " + std::to_string(min_rank) + "-D to " +
          std::to_string(max_rank) + "-D";
    return false;
  }
  if (std::any_of(t.lens.begin(), t.lens.end(), [](int x) { return x <= 0; })) {
    err = "tensor value '" + v + "' has an empty dimension";
    return false;
  }
  return true;
}

// NCHW / NHWC (NCDHW / NDHWC) from the strides; empty strides are packed NC(D)HW.
std::string layout_of(const TensorValue& t, bool* strided) {
  const size_t n = t.lens.size();
  const bool d3 = n == 5;
  *strided = false;
  if (t.strides.empty()) return d3 ? "NCDHW" : "NCHW";
  std::vector<long long> nchw(n), nhwc(n);
  long long acc = 1;
  for (size_t i = n; i-- > 0;)
    nchw[i] = acc, acc *= t.lens[i];
  acc = t.lens[1];
  nhwc[1] = 1;
  for (size_t i = n; i-- > 2;)
    nhwc[i] = acc, acc *= t.lens[i];
  nhwc[0] = acc;
  auto same = [&](const std::vector<long long>& s) {
    for (size_t i = 0; i < n; ++i)
      if (t.lens[i] > 1 && s[i] != t.strides[i]) return false;
    return true;
  };
  if (same(nchw)) return d3 ? "NCDHW" : "NCHW";
  if (same(nhwc)) return d3 ? "NDHWC" : "NHWC";
  *strided = true;
  return d3 ? "NCDHW" : "NCHW";
}

struct ConvValue {
  bool transpose = false;
  int groups = 1;
  std::vector<int> pads, strides, dilations, adj;
};

bool parse_conv(const std::string& v, int spatial, ConvValue& c, std::string& err) {
  const auto f = fields(v);
  if (!f.empty() && (f[0] == "conv2d" || f[0] == "conv3d" || f[0].front() == '{' ||
                     f[0].rfind("miopen", 0) == 0)) {
    // Current format: [convNd,] mode, padding mode, {pads}, {strides}, {dilations}, [G,] [{adj},]
    size_t i = f[0].rfind("conv", 0) == 0 ? 1 : 0;
    if (i + 5 > f.size()) {
      err = "convolution value '" + v + "' has too few fields";
      return false;
    }
    const std::string& mode = f[i];
    c.transpose = mode == "miopenTranspose" || mode == "1";
    i += 2;  // mode, padding mode
    if (!parse_int_list(f[i], c.pads) || !parse_int_list(f[i + 1], c.strides) ||
        !parse_int_list(f[i + 2], c.dilations)) {
      err = "convolution value '" + v + "' has unreadable pads / strides / dilations";
      return false;
    }
    i += 3;
    std::vector<int> g;
    if (i < f.size() && f[i].front() != '{' && parse_int_list(f[i], g) && g.size() == 1) {
      c.groups = g[0];
      ++i;
    }
    if (i < f.size() && f[i].front() == '{' && !parse_int_list(f[i], c.adj)) {
      err = "convolution value '" + v + "' has an unreadable output padding";
      return false;
    }
  } else {
    // 2018 format (seed 002): p, q, u, v, l, j.
    std::vector<int> n;
    if (!parse_int_list(v, n) || n.size() != 6 || spatial != 2) {
      err = "convolution value '" + v + "' is not p, q, u, v, l, j";
      return false;
    }
    c.pads = {n[0], n[1]}, c.strides = {n[2], n[3]}, c.dilations = {n[4], n[5]};
  }
  const size_t sp = static_cast<size_t>(spatial);
  if (c.pads.size() != sp || c.strides.size() != sp || c.dilations.size() != sp ||
      (!c.adj.empty() && c.adj.size() != sp) || c.groups < 1) {
    err = "convolution value '" + v + "' does not match the tensors' " + std::to_string(spatial) +
          " spatial dimensions";
    return false;
  }
  return true;
}

const std::string* arg(const std::map<std::string, std::string>& a,
                       std::initializer_list<const char*> names) {
  for (const char* n : names) {
    auto it = a.find(n);
    if (it != a.end()) return &it->second;
  }
  return nullptr;
}

bool is_null(const std::string* v) {
  return !v || *v == "nullptr" || *v == "0" || *v == "0x0";
}

}  // namespace

std::string decode_command_line(std::string_view line, bool miopen_bn_swap, std::string* error) {
  auto fail = [&](const std::string& e) {
    if (error) *error = e;
    return std::string();
  };
  size_t pos = 0;
  while ((pos = line.find("MIOpenDriver", pos)) != std::string_view::npos) {
    const bool start_ok = pos == 0 || line[pos - 1] == ' ' || line[pos - 1] == '/' ||
                          line[pos - 1] == '\\' || line[pos - 1] == ']';
    size_t after = pos + 12;
    if (line.substr(after, 4) == ".exe") after += 4;
    if (start_ok && after < line.size() && line[after] == ' ') break;
    pos = after;
  }
  if (pos == std::string_view::npos) return {};
  std::vector<std::string> words = split_ws(line.substr(pos + 12));
  if (!words.empty() && words[0] == ".exe") words.erase(words.begin());
  if (words.empty() || !known_base(words[0])) return {};  // not a command we replay
  for (const auto& w : words)
    if (!safe_token(w)) return fail("unexpected characters in '" + w + "'");
  const std::string base = words[0];
  std::vector<std::string> args = drop_run_flags(words);
  try {
    if (family_of(base) == "conv") {
      ConvSpec spec;
      // -F is not part of the problem; keep it apart.
      int forw = 0;
      std::vector<std::string> rest;
      for (size_t i = 0; i < args.size(); ++i)
        if ((args[i] == "-F" || args[i] == "--forw") && i + 1 < args.size())
          forw = std::atoi(args[++i].c_str());
        else
          rest.push_back(args[i]);
      if (auto err = parse_conv_line(join(rest), spec)) return fail(*err);
      if (forw < 0 || forw > 7) return fail("-F must be 0..7");
      auto positive = [](const std::vector<int>& v, int min) {
        return std::all_of(v.begin(), v.end(), [min](int x) { return x >= min; });
      };
      if (!positive(spec.in_lens, 1) || !positive(spec.wei_lens, 1) || !positive(spec.pads, 0) ||
          !positive(spec.strides, 1) || !positive(spec.dilations, 1) || spec.groups < 1)
        return fail("sizes must be positive (pads >= 0)");
      return to_driver_args(spec) + (forw ? " -F " + std::to_string(forw) : "");
    }
    if (family_of(base) == "bnorm") {
      if (miopen_bn_swap)
        for (auto& a : args) {
          if (a == "-s")
            a = "-r";
          else if (a == "-r")
            a = "-s";
          else if (a == "--save")
            a = "--run";
          else if (a == "--run")
            a = "--save";
        }
      BnSpec spec;
      if (auto err = parse_bn_line(join(args), spec)) return fail(*err);
      return to_bn_driver_args(spec);
    }
    if (family_of(base) == "activ") {
      ActivSpec spec;
      if (auto err = parse_activ_line(join(args), spec)) return fail(*err);
      return to_activ_driver_args(spec);
    }
    if (family_of(base) == "softmax") {
      SoftmaxSpec spec;
      if (auto err = parse_softmax_line(join(args), spec)) return fail(*err);
      return to_softmax_driver_args(spec);
    }
    if (family_of(base) == "lrn") {
      LrnSpec spec;
      if (auto err = parse_lrn_line(join(args), spec)) return fail(*err);
      return to_lrn_driver_args(spec);
    }
    if (family_of(base) == "reduce") {
      ReduceSpec spec;
      if (auto err = parse_reduce_line(join(args), spec)) return fail(*err);
      return to_reduce_driver_args(spec);
    }
    if (family_of(base) == "pool") {
      PoolSpec spec;
      if (auto err = parse_pool_line(join(args), spec)) return fail(*err);
      return to_pool_driver_args(spec);
    }
    if (family_of(base) == "ctc") {
      CtcSpec spec;
      if (auto err = parse_ctc_line(join(args), spec)) return fail(*err);
      return to_ctc_driver_args(spec);
    }
    if (family_of(base) == "CBAInfer") {
      // LogCmdFusion: the flags MIOpenDriver CBAInfer reads, each with a value. The lines of
      // chains it cannot run (--conv_mode trans, --residual 1, layouts) are skipped with the flag.
      static const char* known[] = {"-F", "-n", "-c", "-H", "-W", "-k", "-g", "-y",
                                    "-x", "-u", "-v", "-p", "-q", "-r", "-l", "-j",
                                    "-z", "-m", "-M", "-A", "-B", "-G"};
      for (size_t i = 1; i < args.size(); i += 2)
        if (std::find(std::begin(known), std::end(known), args[i]) == std::end(known) ||
            i + 1 >= args.size())
          return fail("MIOpenDriver CBAInfer does not read '" + args[i] + "'");
    }
    if (family_of(base) == "tensorop") {
      // Only MIOpen's tensorop flags, each with a value (LogCmdTensorOp prints nothing else).
      static const char* known[] = {"-A", "-B", "-G", "-n", "-c", "-H", "-W", "-o", "-v", "-F"};
      for (size_t i = 1; i < args.size(); i += 2)
        if (std::find(std::begin(known), std::end(known), args[i]) == std::end(known) ||
            i + 1 >= args.size())
          return fail("unexpected tensorop argument '" + args[i] + "'");
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return join(args);  // rnn, rnn_seq, tensorop, CBAInfer: the driver parses them when replayed
}

void LogDecoder::warn(size_t line, const std::string& what) {
  if (warnings_.size() < 1000) warnings_.push_back("line " + std::to_string(line) + ": " + what);
}

void LogDecoder::add(const std::string& command, bool from_block, size_t line) {
  Entry& e = entries_[command];
  if (e.block_count + e.command_count == 0) {
    e.first_line = line;
    e.family = family_of(command.substr(0, command.find(' ')));
    order_.push_back(command);
  }
  ++(from_block ? e.block_count : e.command_count);
  if (!from_block) families_with_commands_.insert(e.family);
}

void LogDecoder::feed_text(std::string_view text) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    feed_line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

void LogDecoder::feed_line(std::string_view raw) {
  ++line_no_;
  if (raw.size() > kMaxLine) {
    warn(line_no_, "line longer than 64 KiB skipped");
    return;
  }
  const Prefixed p = split_prefix(raw);
  const std::string_view body = trim(p.body);
  if (body.empty()) return;

  // A driver command (LogCmd* or an echoed line).
  if (body.find("MIOpenDriver") != std::string_view::npos) {
    bool swap = source_ == LogSource::MIOpen;
    if (source_ == LogSource::Auto)
      swap = !(p.tagged && (p.backend == "CPU" || p.backend == "CUDA"));
    std::string err;
    const std::string cmd = decode_command_line(body, swap, &err);
    if (!cmd.empty())
      add(cmd, false, line_no_);
    else if (!err.empty())
      warn(line_no_, "command skipped: " + err);
    return;
  }
  // API-call blocks, one open block per thread.
  if (body.rfind("miopenStatus_t ", 0) == 0 && body.back() == '{') {
    const size_t open = body.find('(');
    if (open == std::string_view::npos) {
      warn(line_no_, "unreadable API-call header");
      return;
    }
    if (open_.count(p.thread))
      warn(open_[p.thread].line, "API-call block without its closing '}' skipped");
    Block b;
    b.function = std::string(trim(body.substr(15, open - 15)));
    b.line = line_no_;
    open_[p.thread] = std::move(b);
    return;
  }
  auto it = open_.find(p.thread);
  if (it == open_.end()) return;  // other log text
  if (body == "}") {
    const Block b = std::move(it->second);
    open_.erase(it);
    close_block(b);
    return;
  }
  const size_t eq = body.find(" = ");
  if ((eq == std::string_view::npos || eq == 0 || eq > 64) && !it->second.last.empty() &&
      body.find(" : ") != std::string_view::npos) {
    // MIOpen's operator<< of some descriptors (the reduce-tensor one) spans lines "Name : value".
    std::string& v = it->second.args[it->second.last];
    if (v.size() < 4096) v += " " + std::string(body);
    return;
  }
  if (eq == std::string_view::npos || eq == 0 || eq > 64) {
    warn(line_no_, "unexpected line inside the API-call block of line " +
                       std::to_string(it->second.line) + " ignored");
    return;
  }
  if (it->second.args.size() < 64) {
    it->second.last = std::string(trim(body.substr(0, eq)));
    it->second.args[it->second.last] = std::string(body.substr(eq + 3));
  }
}

void LogDecoder::close_block(const Block& b) {
  const std::string& fn = b.function;
  const auto& a = b.args;
  std::string err;
  const bool conv_call =
      fn == "miopenConvolutionForward" || fn == "miopenFindConvolutionForwardAlgorithm" ||
      fn == "miopenConvolutionForwardImmediate" || fn == "miopenConvolutionBackwardData" ||
      fn == "miopenFindConvolutionBackwardDataAlgorithm" ||
      fn == "miopenConvolutionBackwardDataImmediate" || fn == "miopenConvolutionBackwardWeights" ||
      fn == "miopenFindConvolutionBackwardWeightsAlgorithm" ||
      fn == "miopenConvolutionBackwardWeightsImmediate";
  // Find 2.0: the problem of a miopenFindSolutions block (runs print only their solution).
  if (fn == "miopenFindSolutions") {
    const std::string* pv = arg(a, {"problem"});
    const std::string cmd = pv ? find2_conv_command(*pv, err) : std::string();
    if (cmd.empty())
      warn(b.line,
           fn + ": " + (pv ? err : std::string("block lacks problem")) + " (no driver command)");
    else
      add(cmd, true, b.line);
    return;
  }
  if (conv_call) {
    const std::string* xv = arg(a, {"xDesc", "dxDesc"});
    const std::string* wv = arg(a, {"wDesc", "dwDesc"});
    const std::string* cv = arg(a, {"convDesc"});
    if (!xv || !wv || !cv) {
      warn(b.line, fn + " block lacks xDesc / wDesc / convDesc");
      return;
    }
    TensorValue x, w;
    ConvValue c;
    if (!parse_tensor(*xv, x, err) || !parse_tensor(*wv, w, err) ||
        !parse_conv(*cv, static_cast<int>(x.lens.size()) - 2, c, err) ||
        w.lens.size() != x.lens.size()) {
      warn(b.line, fn + ": " + (err.empty() ? "tensor ranks differ" : err));
      return;
    }
    ConvSpec s;
    s.spatial_dims = static_cast<int>(x.lens.size()) - 2;
    s.transpose = c.transpose;
    s.groups = c.groups;
    s.in_lens = x.lens;
    s.wei_lens = w.lens;
    s.pads = c.pads, s.strides = c.strides, s.dilations = c.dilations;
    s.trans_output_pads = c.adj.empty() ? std::vector<int>(c.pads.size(), 0) : c.adj;
    bool strided_x = false, strided_w = false;
    s.in_layout = layout_of(x, &strided_x);
    s.fil_layout = layout_of(w, &strided_w);
    s.out_layout = s.in_layout;
    if (strided_x || strided_w) warn(b.line, fn + ": non-packed strides decoded as packed");
    // Round trip through the driver's parser: whatever it rejects is not a command.
    ConvSpec check;
    const std::string line = to_driver_args(s);
    if (auto e = parse_conv_line(line, check)) {
      warn(b.line, fn + ": " + *e);
      return;
    }
    const int forw = fn.find("BackwardData") != std::string::npos      ? 2
                     : fn.find("BackwardWeights") != std::string::npos ? 4
                                                                       : 1;
    add(line + " -F " + std::to_string(forw), true, b.line);
    return;
  }
  // Softmax: the block has the tensor and (_V2) the algorithm and mode; alpha / beta are host
  // pointers the trace does not dereference, so 1 / 0 are assumed. The legacy calls are
  // ACCURATE in CHANNEL mode.
  if (fn.rfind("miopenSoftmaxForward", 0) == 0 || fn.rfind("miopenSoftmaxBackward", 0) == 0) {
    const bool fwd = fn.rfind("miopenSoftmaxForward", 0) == 0;
    const std::string* tv = arg(a, {fwd ? "xDesc" : "dxDesc"});
    TensorValue t;
    if (!tv || !parse_tensor(*tv, t, err) || t.lens.size() != 4) {
      warn(b.line, fn + ": " + (err.empty() ? "block lacks a 4-D tensor" : err));
      return;
    }
    SoftmaxSpec s;
    s.lens = t.lens;
    s.forw = fwd ? 1 : 2;
    const std::string* av = arg(a, {"algorithm"});
    const std::string* mv = arg(a, {"mode"});
    try {
      if (av) s.desc.algorithm = static_cast<miopenSoftmaxAlgorithm_t>(std::stoi(*av));
      if (mv) s.desc.mode = static_cast<miopenSoftmaxMode_t>(std::stoi(*mv));
    } catch (const std::exception&) {
      warn(b.line, fn + ": algorithm / mode are not numbers");
      return;
    }
    add(to_softmax_driver_args(s), true, b.line);
    return;
  }
  // LRN: xDesc gives the lengths, lrnDesc (MIOpen's operator<<: "miopenLRNCrossChannel, 5,
  // 0.001, 0.75, 1, ") the parameters; the blocks do not say the data type (lrn is assumed).
  if (fn == "miopenLRNForward" || fn == "miopenLRNBackward") {
    const std::string* xv = arg(a, {"xDesc"});
    const std::string* dv = arg(a, {"lrnDesc"});
    TensorValue x;
    if (!xv || !dv || !parse_tensor(*xv, x, err) || x.lens.size() != 4) {
      warn(b.line, fn + ": " + (err.empty() ? "block lacks a 4-D xDesc / lrnDesc" : err));
      return;
    }
    std::vector<std::string> f;
    std::stringstream ds(*dv);
    for (std::string t; std::getline(ds, t, ',');)
      f.emplace_back(trim(t));
    LrnSpec s;
    s.lens = x.lens;
    s.forw = fn == "miopenLRNForward" ? 1 : 2;
    try {
      if (f.size() < 5 || f[2].empty()) throw std::invalid_argument("unset");
      s.desc.mode =
          f[0] == "miopenLRNCrossChannel" ? miopenLRNCrossChannel : miopenLRNWithinChannel;
      s.desc.n = static_cast<unsigned>(std::stoul(f[1]));
      s.desc.alpha = std::stod(f[2]);
      s.desc.beta = std::stod(f[3]);
      s.desc.k = std::stod(f[4]);
    } catch (const std::exception&) {
      warn(b.line, fn + ": unreadable lrnDesc");
      return;
    }
    add(to_lrn_driver_args(s), true, b.line);
    return;
  }
  if (fn == "miopenReduceTensor") {
    const std::string* av = arg(a, {"aDesc"});
    const std::string* cv = arg(a, {"cDesc"});
    const std::string* rv = arg(a, {"reduceTensorDesc"});
    TensorValue at, ct;
    std::optional<std::string> line;
    if (av && cv && rv && parse_tensor(*av, at, err, 1, 6) && parse_tensor(*cv, ct, err, 1, 6))
      line = reduce_block_command(at.lens, ct.lens, *rv, &err);
    if (!line) {
      warn(b.line,
           fn + ": " + (err.empty() ? "block lacks aDesc / cDesc / reduceTensorDesc" : err));
      return;
    }
    add(*line, true, b.line);
    return;
  }
  if (fn == "miopenPoolingForward" || fn == "miopenPoolingBackward") {
    const std::string* xv = arg(a, {"xDesc"});
    const std::string* pv = arg(a, {"poolDesc"});
    TensorValue x;
    if (!xv || !pv || !parse_tensor(*xv, x, err)) {
      warn(b.line, fn + ": " + (err.empty() ? "block lacks xDesc / poolDesc" : err));
      return;
    }
    const auto line = pool_block_command(fn == "miopenPoolingForward", x.lens, x.strides, *pv, err);
    if (!line) {
      warn(b.line, fn + ": " + err);
      return;
    }
    add(*line, true, b.line);
    return;
  }
  // CTC loss: the block logs the label and input lengths as host pointers, and the descriptor
  // (as MIOpen's operator<<) only by its data type, so no command follows from it; the
  // "Command [miopenCTCLoss]" line (MIOPEN_ENABLE_LOGGING_CMD) holds the whole problem.
  if (fn == "miopenCTCLoss") {
    warn(b.line, fn + ": the block lacks the label and input lengths (decode the logged "
                      "MIOpenDriver ctc command instead)");
    return;
  }
  if (fn == "miopenActivationForward" || fn == "miopenActivationBackward") {
    const std::string* xv = arg(a, {"xDesc"});
    const std::string* av = arg(a, {"activDesc"});
    TensorValue x;
    if (!xv || !av || !parse_tensor(*xv, x, err)) {
      warn(b.line, fn + ": " + (err.empty() ? "block lacks xDesc / activDesc" : err));
      return;
    }
    bool strided = false;
    const std::string layout = layout_of(x, &strided);
    const auto line =
        activ_block_command(fn == "miopenActivationForward", x.lens, layout, *av, &err);
    if (!line) {
      warn(b.line, fn + ": " + err);
      return;
    }
    add(*line, true, b.line);
    return;
  }
  if (fn == "miopenOpTensor" || fn == "miopenSetTensor" || fn == "miopenScaleTensor") {
    // The blocks log the scalars as pointers: the command takes the driver's defaults for them
    // (-A 1 -B 1 -G 0, -v 1), and tensorop for every type (the descriptors' values lack it).
    const std::string* dv = arg(a, {"aDesc", "yDesc"});
    TensorValue t;
    if (!dv || !parse_tensor(*dv, t, err)) {
      warn(b.line, fn + ": " + (err.empty() ? "block lacks aDesc / yDesc" : err));
      return;
    }
    int o = fn == "miopenSetTensor" ? 0 : 1;
    if (fn == "miopenOpTensor") {
      std::vector<int> op;
      const std::string* ov = arg(a, {"tensorOp"});
      if (!ov || !parse_int_list(*ov, op) || op.size() != 1 || op[0] > 3) {
        warn(b.line, fn + ": unreadable tensorOp");
        return;
      }
      o = op[0] + 2;
    }
    const int w = t.lens.size() == 5 ? t.lens[3] * t.lens[4] : t.lens[3];
    add("tensorop -n " + std::to_string(t.lens[0]) + " -c " + std::to_string(t.lens[1]) + " -H " +
            std::to_string(t.lens[2]) + " -W " + std::to_string(w) + " -o " + std::to_string(o),
        true, b.line);
    return;
  }
  if (fn.rfind("miopenBatchNormalization", 0) == 0) {
    const std::string* xv = arg(a, {"xDesc", "x_desc"});
    const std::string* mv = arg(a, {"bn_mode", "mode"});
    TensorValue x;
    if (!xv || !mv || !parse_tensor(*xv, x, err)) {
      warn(b.line, fn + ": " + (err.empty() ? "block lacks xDesc / bn_mode" : err));
      return;
    }
    BnSpec s;
    s.lens = x.lens;
    bool strided = false;
    s.layout = layout_of(x, &strided);
    s.mode = *mv == "1" || *mv == "miopenBNSpatial" ? miopenBNSpatial : miopenBNPerActivation;
    const bool v2 = fn.size() > 3 && fn.compare(fn.size() - 3, 3, "_V2") == 0;
    const std::string core = v2 ? fn.substr(0, fn.size() - 3) : fn;
    if (core == "miopenBatchNormalizationForwardTraining") {
      s.forw = 1;
      s.save = !is_null(arg(a, {"resultSaveMean"}));
      s.run = !is_null(arg(a, {"resultRunningMean"}));
    } else if (core == "miopenBatchNormalizationForwardInference") {
      s.forw = 2;
      s.run = !is_null(arg(a, {"estimatedMean"}));
    } else if (core == "miopenBatchNormalizationBackward") {
      s.back = true;
      s.save = !is_null(arg(a, {"savedMean"}));
    } else {
      return;  // not a compute call
    }
    BnSpec check;
    const std::string line = to_bn_driver_args(s);
    if (auto e = parse_bn_line(line, check)) {
      warn(b.line, fn + ": " + *e);
      return;
    }
    add(line, true, b.line);
  }
}

DecodeResult LogDecoder::finish() const {
  DecodeResult r;
  r.warnings = warnings_;
  for (const auto& [thread, b] : open_)
    r.warnings.push_back("line " + std::to_string(b.line) + ": API-call block of " + b.function +
                         " never closed");
  std::map<std::string, size_t> dropped;
  for (const auto& cmd : order_) {
    const Entry& e = entries_.at(cmd);
    const bool commands_seen = families_with_commands_.count(e.family) != 0;
    if (commands_seen) dropped[e.family] += e.block_count;
    const size_t count = commands_seen ? e.command_count : e.block_count;
    if (count > 0) r.commands.push_back({cmd, count, e.first_line});
  }
  for (const auto& [family, n] : dropped)
    if (n > 0)
      r.warnings.push_back(std::to_string(n) + " " + family +
                           " API-call block(s) not counted: the log has command lines for the same "
                           "calls");
  return r;
}

}  // namespace anydnn::driver
