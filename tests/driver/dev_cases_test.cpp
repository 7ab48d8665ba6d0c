// Every convolution case of MIOpen's own test suite (tests/problems/miopen_dev_cases_conv.txt)
// through MIOpenDriver with -F 0 -V 1: all three directions (forward only for int8, as in
// MIOpen), each verified against the double-accumulating reference, scaled down for CI by the
// documented rule in case_scaling.hpp.
//
// The same program is the driver part of the GPU suite: registered again with MIOPEN_BACKEND=cuda
// (label gpu), the driver then runs every case on device buffers. Nothing here depends on the
// backend; the cases keep their CI scaling there too (docs/testing.md says why), so a GPU
// failure replays on the CPU with the very same command.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "case_scaling.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

struct ProcessResult {
  int status;
  std::string output;
};

// The backend the driver's handle gets (the environment it inherits), for failure messages.
std::string backend() {
  const char* b = std::getenv("MIOPEN_BACKEND");
  return b != nullptr && *b != '\0' ? b : "default";
}

ProcessResult run(const std::string& cmd) {
  ProcessResult r{-1, {}};
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr)
    r.output += buf.data();
  r.status = pclose(pipe);
  return r;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
    ++n;
  return n;
}

// ANYDNN_DEV_CASES_VERIFY=0 (CI's ASan + UBSan run, .ci/run): the convolution cases run every
// direction without -V 1, timed once (-t 1) so that each direction's run is seen. Under the
// sanitizers the double reference took about 80% of these cases' time; the sanitizers are there
// for the library's memory and UB errors, which the run itself exposes, and the same cases are
// verified by the uninstrumented suite of the same CI run. Verification is the default.
bool dev_cases_verify() {
  const char* v = std::getenv("ANYDNN_DEV_CASES_VERIFY");
  return v == nullptr || std::string(v) != "0";
}

class MIOpenDevCases : public ::testing::TestWithParam<std::string> {};

TEST_P(MIOpenDevCases, VerifiesInEveryDirection) {
  driver::ConvSpec spec;
  ASSERT_FALSE(driver::parse_conv_line(GetParam(), spec)) << GetParam();
  const driver::ConvSpec scaled = scale_for_ci(spec);
  const bool verify = dev_cases_verify();
  const std::string cmd = std::string(ANYDNN_DRIVER_PATH) + " " + driver::to_driver_args(scaled) +
                          (verify ? " -F 0 -V 1 -i 1" : " -F 0 -V 0 -t 1 -i 1");
  const ProcessResult r = run(cmd);
  SCOPED_TRACE("case:    " + GetParam() + "\nran:     MIOPEN_BACKEND=" + backend() + " " + cmd +
               "\noutput:\n" + r.output);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(count(r.output, "FAILED"), 0);
  const int directions = spec.type == miopenInt8 ? 1 : 3;
  if (!verify) {
    EXPECT_EQ(count(r.output, "Conv. Elapsed:"), directions);
    return;
  }
  // CUDA runs verify against the GPU copy of the reference (MIOPEN_DRIVER_USE_GPU_REFERENCE).
  EXPECT_EQ(count(r.output, "Verifies OK on CPU reference") +
                count(r.output, "Verifies OK on GPU reference"),
            directions);
}

INSTANTIATE_TEST_SUITE_P(Cases, MIOpenDevCases,
                         ::testing::ValuesIn(load_problem_lines("miopen_dev_cases_conv.txt")),
                         [](const auto& info) {
                           return "L" + std::to_string(info.index) + "_" + test_name_of(info.param);
                         });

// Every batch-normalization case (tests/problems/miopen_dev_cases_bnorm.txt) with its own
// direction and save / running flags, verified by the driver against the double reference.
class MIOpenDevBnCases : public ::testing::TestWithParam<std::string> {};

TEST_P(MIOpenDevBnCases, Verifies) {
  driver::BnSpec spec;
  ASSERT_FALSE(driver::parse_bn_line(GetParam(), spec)) << GetParam();
  const driver::BnSpec scaled = scale_bn_for_ci(spec);
  const std::string cmd =
      std::string(ANYDNN_DRIVER_PATH) + " " + driver::to_bn_driver_args(scaled) + " -V 1 -i 1";
  const ProcessResult r = run(cmd);
  SCOPED_TRACE("case:    " + GetParam() + "\nran:     MIOPEN_BACKEND=" + backend() + " " + cmd +
               "\noutput:\n" + r.output);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(count(r.output, "FAILED"), 0);
  EXPECT_EQ(count(r.output, "Batch Norm Verifies on CPU and GPU."), 1);
}

INSTANTIATE_TEST_SUITE_P(Cases, MIOpenDevBnCases,
                         ::testing::ValuesIn(load_problem_lines("miopen_dev_cases_bnorm.txt")),
                         [](const auto& info) {
                           std::string name = "L" + std::to_string(info.index) + "_";
                           for (char c : info.param)
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// Every RNN case (tests/problems/miopen_dev_cases_rnn.txt) in every direction its -F names,
// verified by the driver against the double reference (forward and backpropagation through
// time); with dropout between layers the run must succeed and say verification was skipped.
class MIOpenDevRnnCases : public ::testing::TestWithParam<std::string> {};

TEST_P(MIOpenDevRnnCases, Verifies) {
  const std::string scaled = scale_rnn_for_ci(GetParam());
  const std::string cmd = std::string(ANYDNN_DRIVER_PATH) + " " + scaled + " -V 1 -i 1";
  const ProcessResult r = run(cmd);
  SCOPED_TRACE("case:    " + GetParam() + "\nran:     MIOPEN_BACKEND=" + backend() + " " + cmd +
               "\noutput:\n" + r.output);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(count(r.output, "FAILED"), 0);
  // Dropout between layers (more than one layer) cannot be verified; everything else must be.
  const bool skipped = count(r.output, "verification skipped") >= 1;
  if (skipped)
    EXPECT_NE(scaled.find("-U 1"), std::string::npos) << "skipped without dropout";
  else
    EXPECT_GE(count(r.output, "Verifies on CPU and GPU"), 2);
}

INSTANTIATE_TEST_SUITE_P(Cases, MIOpenDevRnnCases,
                         ::testing::ValuesIn(load_problem_lines("miopen_dev_cases_rnn.txt")),
                         [](const auto& info) {
                           std::string name = "L" + std::to_string(info.index) + "_";
                           for (char c : info.param)
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// Every RNN case again in fp16 (MIOpen's driver bases rnnfp16 and rnn_seqfp16): half storage,
// fp32 kernels, MIOpen's fp16 tolerance.
std::vector<std::string> fp16_rnn_lines() {
  std::vector<std::string> out;
  for (const auto& line : load_problem_lines("miopen_dev_cases_rnn.txt")) {
    if (line.rfind("rnn ", 0) == 0) out.push_back("rnnfp16 " + line.substr(4));
    if (line.rfind("rnn_seq ", 0) == 0) out.push_back("rnn_seqfp16 " + line.substr(8));
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Fp16Cases, MIOpenDevRnnCases, ::testing::ValuesIn(fp16_rnn_lines()),
                         [](const auto& info) {
                           std::string name = "L" + std::to_string(info.index) + "_";
                           for (char c : info.param)
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// The scaling rule itself: only N and spatial sizes change, and the work ends within budget
// unless every axis is at its minimum.
TEST(CaseScaling, KeepsEverythingButBatchAndSpatialSizes) {
  for (const auto& line : load_problem_lines("miopen_dev_cases_conv.txt")) {
    driver::ConvSpec s;
    ASSERT_FALSE(driver::parse_conv_line(line, s));
    const driver::ConvSpec t = scale_for_ci(s);
    EXPECT_EQ(t.wei_lens, s.wei_lens) << line;
    EXPECT_EQ(t.in_lens[1], s.in_lens[1]) << line;
    EXPECT_EQ(t.pads, s.pads) << line;
    EXPECT_EQ(t.strides, s.strides) << line;
    EXPECT_EQ(t.dilations, s.dilations) << line;
    EXPECT_EQ(t.groups, s.groups) << line;
    EXPECT_LE(t.in_lens[0], 2) << line;
    for (size_t i = 2; i < t.in_lens.size(); ++i)
      EXPECT_LE(t.in_lens[i], s.in_lens[i]) << line;
  }
}

}  // namespace
}  // namespace anydnn::test
