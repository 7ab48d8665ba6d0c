// Helpers shared by the test programs: fresh random seeds (printed on failure), problem lists
// in MIOpenDriver syntax, and host tensors filled with random, never-all-zero data.
#pragma once

#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "conv_spec.hpp"
#include "host_buffer.hpp"

namespace anydnn::test {

// A fresh seed per test run; use SCOPED_TRACE(seed_trace(seed)) so failures print it.
// ANYDNN_TEST_SEED=<n> replays a failing run.
inline unsigned fresh_seed() {
  if (const char* s = std::getenv("ANYDNN_TEST_SEED"))
    return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  return std::random_device{}();
}
inline std::string seed_trace(unsigned seed) {
  return "random seed " + std::to_string(seed);
}

// n floats uniform in [lo, hi).
inline std::vector<float> random_floats(std::mt19937& rng, size_t n, float lo = -0.5f,
                                        float hi = 0.5f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& e : v)
    e = u(rng);
  return v;
}

// Non-comment lines of a problem list (tests/problems/*.txt).
inline std::vector<std::string> load_problem_lines(const std::string& file) {
  std::ifstream in(std::string(ANYDNN_TEST_PROBLEM_DIR) + "/" + file);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    const auto hash = l.find('#');
    if (hash != std::string::npos) l.erase(hash);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\r'))
      l.pop_back();
    if (!l.empty()) lines.push_back(l);
  }
  return lines;
}

// A short gtest-safe name for a problem line, e.g. "fp16_n2_c8_11x13_k6_3x3_p1_s1_d1_g1_NHWC".
inline std::string test_name_of(const std::string& line) {
  driver::ConvSpec s;
  if (driver::parse_conv_line(line, s)) return "unparsable";
  const auto join = [](const std::vector<int>& v, size_t from) {
    std::string r;
    for (size_t i = from; i < v.size(); ++i)
      r += (i > from ? "x" : "") + std::to_string(v[i]);
    return r;
  };
  std::string name = s.base == "conv" ? "fp32" : s.base.substr(4);
  name += "_n" + std::to_string(s.in_lens[0]) + "_c" + std::to_string(s.in_lens[1]) + "_" +
          join(s.in_lens, 2) + "_k" + std::to_string(s.wei_lens[s.transpose ? 1 : 0]) + "_" +
          join(s.wei_lens, 2) + "_p" + join(s.pads, 0) + "_s" + join(s.strides, 0) + "_d" +
          join(s.dilations, 0) + "_g" + std::to_string(s.groups);
  if (s.transpose) name += "_trans";
  if (s.in_layout != "NCHW" && s.in_layout != "NCDHW") name += "_" + s.in_layout;
  return name;
}

// Uniform values in [lo, hi) in the tensor's storage type.
inline void fill_random(driver::HostTensor& t, std::mt19937& rng, double lo = -1.0,
                        double hi = 1.0) {
  t.fill_uniform(rng, lo, hi, 1.0);
}

}  // namespace anydnn::test
