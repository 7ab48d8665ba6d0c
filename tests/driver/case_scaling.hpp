// How the MIOpen dev cases are shrunk to fit CI (docs/testing.md). Only the batch and the input's
// spatial sizes change; channels, groups, filters, padding, strides, dilations, layouts, mode and
// data type stay as in the case.
//   1. N = min(N, 2).
//   2. While the direct-convolution work of one direction exceeds kFlopBudget, halve (rounding
//      up) the largest input spatial size that is still above its minimum, the smallest size
//      that keeps at least two output positions along that axis where the original had them:
//      max(1, (f - 1) * d + 1 - 2p) + s for a convolution, 2 for a transposed one.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "bn_spec.hpp"
#include "conv_spec.hpp"

namespace anydnn::test {

constexpr double kFlopBudget = 4e7;

// Direct-convolution FLOPs of one direction (2 * N * C/G * K * taps * output positions).
inline double conv_flops(const driver::ConvSpec& s) {
  const int dims = s.spatial_dims;
  double f = 2.0 * s.in_lens[0];
  const int c = s.in_lens[1];
  const int k = s.transpose ? s.wei_lens[1] * s.groups : s.wei_lens[0];
  f *= static_cast<double>(c) / s.groups * k;
  for (int i = 0; i < dims; ++i) {
    const long in = s.in_lens[2 + i], fl = s.wei_lens[2 + i];
    const long p = s.pads[i], st = s.strides[i], d = s.dilations[i];
    // Output positions of the plain convolution behind the problem (for a transposed one that
    // is its input).
    const long out = s.transpose ? in : std::max(1L, (in + 2 * p - d * (fl - 1) - 1) / st + 1);
    f *= static_cast<double>(fl) * static_cast<double>(out);
  }
  return f;
}

inline driver::ConvSpec scale_for_ci(driver::ConvSpec s) {
  s.in_lens[0] = std::min(s.in_lens[0], 2);
  const int dims = s.spatial_dims;
  const auto minimum = [&](int i) {
    if (s.transpose) return 2;
    const int fl = s.wei_lens[2 + i], p = s.pads[i], st = s.strides[i], d = s.dilations[i];
    return std::max(1, (fl - 1) * d + 1 - 2 * p) + st;
  };
  while (conv_flops(s) > kFlopBudget) {
    int pick = -1;
    for (int i = 0; i < dims; ++i) {
      if (s.in_lens[2 + i] <= minimum(i)) continue;
      if (pick < 0 || s.in_lens[2 + i] > s.in_lens[2 + pick]) pick = i;
    }
    if (pick < 0) break;  // every axis at its minimum: run as is
    int& len = s.in_lens[2 + pick];
    len = std::max(minimum(pick), (len + 1) / 2);
  }
  return s;
}

// Batch-norm cases: channels, mode, layout, flags and types stay; while the tensor holds more
// than kBnElementBudget values, halve (rounding up) N while it is above 2, then the largest
// spatial size above 1.
constexpr size_t kBnElementBudget = size_t{1} << 20;

inline driver::BnSpec scale_bn_for_ci(driver::BnSpec s) {
  const auto elements = [&] {
    size_t e = 1;
    for (int l : s.lens)
      e *= static_cast<size_t>(l);
    return e;
  };
  while (elements() > kBnElementBudget) {
    if (s.lens[0] > 2) {
      s.lens[0] = (s.lens[0] + 1) / 2;
      continue;
    }
    size_t big = 2;
    for (size_t i = 3; i < s.lens.size(); ++i)
      if (s.lens[i] > s.lens[big]) big = i;
    if (s.lens[big] == 1) break;
    s.lens[big] = (s.lens[big] + 1) / 2;
  }
  return s;
}

// RNN cases ("rnn -n .. -k .. -W .. -H .. ..."): mode, layers, directions, bias, input mode
// and dropout stay; hidden and input sizes are capped at 32 (equal in skip mode), the sequence
// at 6 steps and every step's batch at 8 (the list keeps its non-increasing shape); rnn_seq's
// per-sequence lengths (-K) at the new sequence length.
inline std::string scale_rnn_for_ci(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string t; in >> t;)
    w.push_back(t);
  auto value = [&](const std::string& flag) -> std::string* {
    for (size_t i = 0; i + 1 < w.size(); ++i)
      if (w[i] == flag) return &w[i + 1];
    return nullptr;
  };
  const bool skip = value("-p") && *value("-p") == "1";
  int h = 32;
  if (auto* v = value("-H")) {
    h = std::min(std::stoi(*v), 32);
    *v = std::to_string(h);
  }
  if (auto* v = value("-W")) *v = std::to_string(skip ? h : std::min(std::stoi(*v), 32));
  int k = 1;
  if (auto* v = value("-k")) {
    k = std::min(std::stoi(*v), 6);
    *v = std::to_string(k);
  }
  if (auto* v = value("-n")) {
    std::istringstream ss(*v);
    std::string out;
    int count = 0;
    for (std::string item; std::getline(ss, item, ',') && count < k; ++count)
      out += (count ? "," : "") + std::to_string(std::min(std::stoi(item), 8));
    *v = out;
  }
  if (auto* v = value("-K")) {  // rnn_seq: per-sequence lengths, capped at the new -k
    std::istringstream ss(*v);
    std::string out;
    for (std::string item; std::getline(ss, item, ',');)
      out += (out.empty() ? "" : ",") + std::to_string(std::min(std::stoi(item), k));
    *v = out;
  }
  std::string r;
  for (const auto& t : w)
    r += (r.empty() ? "" : " ") + t;
  return r;
}

}  // namespace anydnn::test
