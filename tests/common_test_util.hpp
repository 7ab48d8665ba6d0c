// Helpers shared by the test programs: fresh random seeds (printed on failure), problem lists
// in MIOpenDriver syntax, and host tensors filled with random, never-all-zero data.
#pragma once

#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "conv_spec.hpp"
#include "host_buffer.hpp"

namespace anydnn::test {

// A fresh seed per test run; use SCOPED_TRACE(seed_trace(seed)) so failures print it.
inline unsigned fresh_seed() {
  return std::random_device{}();
}
inline std::string seed_trace(unsigned seed) {
  return "random seed " + std::to_string(seed);
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

inline std::string test_name_of(const std::string& line) {
  std::string id = line;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return id;
}

// Uniform values in [lo, hi) in the tensor's storage type.
inline void fill_random(driver::HostTensor& t, std::mt19937& rng, double lo = -1.0,
                        double hi = 1.0) {
  t.fill_uniform(rng, lo, hi, 1.0);
}

}  // namespace anydnn::test
