// The API trace of a Find 2.0 convolution problem -> the conv driver's arguments (decode's
// miopenFindSolutions blocks; log_decoder.cpp). The trace prints a problem as
// find2::Problem::describe does:
//   convolution([transpose, ]pads {1, 1}, strides {1, 1}, dilations {1, 1}, groups 1
//   [, output pads {0, 0}]) forward {miopenTensorConvolutionX: {2, 6, 9, 11}, {594, 99, 11, 1},
//   type 1, miopenTensorConvolutionW: ..., miopenTensorConvolutionY: ...}
// Fused problems (" + ") and other operators have no conv line and are refused with a reason.
#include <miopen/miopen.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "conv_spec.hpp"
#include "log_decoder.hpp"

namespace anydnn::driver {

namespace {

std::vector<int> ints(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    out.push_back(std::stoi(t));
  return out;
}

// NCHW / NHWC (5-D: NCDHW / NDHWC) when the strides are packed in one of them, else empty.
std::string packed_layout(const std::vector<int>& lens, const std::vector<int>& strides) {
  const size_t n = lens.size();
  std::vector<long long> nchw(n), nhwc(n);
  long long acc = 1;
  for (size_t i = n; i-- > 0;)
    nchw[i] = acc, acc *= lens[i];
  acc = lens[1];
  nhwc[1] = 1;
  for (size_t i = n; i-- > 2;)
    nhwc[i] = acc, acc *= lens[i];
  nhwc[0] = acc;
  const auto same = [&](const std::vector<long long>& want) {
    for (size_t i = 0; i < n; ++i)
      if (lens[i] != 1 && want[i] != strides[i]) return false;
    return true;
  };
  if (same(nchw)) return n == 5 ? "NCDHW" : "NCHW";
  if (same(nhwc)) return n == 5 ? "NDHWC" : "NHWC";
  return {};
}

}  // namespace

std::string find2_conv_command(const std::string& problem, std::string& err) {
  static const std::regex head(
      R"(^convolution\((transpose, )?pads \{([0-9, ]*)\}, strides \{([0-9, ]*)\}, )"
      R"(dilations \{([0-9, ]*)\}, groups ([0-9]+)(, output pads \{([0-9, ]*)\})?\) )"
      R"((forward|backward weights|backward) \{(.*)\}$)");
  static const std::regex tensor(
      R"(miopenTensorConvolution([XWY]): \{([0-9, ]*)\}, \{([0-9, ]*)\}, type ([0-9]+))");
  // libstdc++'s regex recurses per character: a bound keeps a garbage line from exhausting the
  // stack (a real 5-D problem prints in ~400 characters).
  if (problem.size() > 2048) {
    err = "problem description longer than 2048 characters";
    return {};
  }
  std::smatch m;
  if (!std::regex_match(problem, m, head)) {
    err = "not a single convolution problem";
    return {};
  }
  ConvSpec s;
  std::vector<int> x_strides, w_strides;
  int type = -1;
  try {
    s.transpose = m[1].matched;
    s.pads = ints(m[2]);
    s.strides = ints(m[3]);
    s.dilations = ints(m[4]);
    s.groups = std::stoi(m[5]);
    s.trans_output_pads = m[7].matched ? ints(m[7]) : std::vector<int>(s.pads.size(), 0);
    s.forw = m[8] == "forward" ? 1 : m[8] == "backward" ? 2 : 4;
    const std::string tensors = m[9];
    for (auto it = std::sregex_iterator(tensors.begin(), tensors.end(), tensor);
         it != std::sregex_iterator(); ++it) {
      const std::smatch& t = *it;
      if (t[1] == "X") {
        s.in_lens = ints(t[2]);
        x_strides = ints(t[3]);
        type = std::stoi(t[4]);
      } else if (t[1] == "W") {
        s.wei_lens = ints(t[2]);
        w_strides = ints(t[3]);
      }
    }
  } catch (const std::exception&) {
    err = "unreadable numbers in the problem";
    return {};
  }
  if (s.in_lens.size() < 4 || s.in_lens.size() > 5 || s.wei_lens.size() != s.in_lens.size() ||
      x_strides.size() != s.in_lens.size() || w_strides.size() != s.wei_lens.size()) {
    err = "the problem lacks 4-D / 5-D x and w tensors";
    return {};
  }
  s.spatial_dims = static_cast<int>(s.in_lens.size()) - 2;
  switch (type) {
    case miopenFloat:
      s.base = "conv";
      break;
    case miopenHalf:
      s.base = "convfp16";
      break;
    case miopenBFloat16:
      s.base = "convbfp16";
      break;
    case miopenInt8:
      s.base = "convint8";
      break;
    default:
      err = "no conv driver for data type " + std::to_string(type);
      return {};
  }
  s.in_layout = packed_layout(s.in_lens, x_strides);
  s.fil_layout = packed_layout(s.wei_lens, w_strides);
  if (s.in_layout.empty() || s.fil_layout.empty()) {
    err = "x or w is not packed NCHW / NHWC";
    return {};
  }
  s.out_layout = s.in_layout;
  // Round trip through the driver's parser: whatever it rejects is not a command.
  const std::string line = to_driver_args(s);
  ConvSpec check;
  if (auto e = parse_conv_line(line, check)) {
    err = *e;
    return {};
  }
  return line + " -F " + std::to_string(s.forw);
}

}  // namespace anydnn::driver
