// MIOpenDriver decode's parser (driver/log_decoder.hpp): seed 002's API-call blocks verbatim,
// MIOpen's current block format with interleaved threads, 3-D, groups, transpose, NHWC, the
// command lines of every family with MIOpen's quirks (BN -s/-r swap, RNN -t 1, fp16 bases),
// de-duplication, and garbage that must be skipped with a warning.
#include <gtest/gtest.h>

#include <algorithm>

#include <random>
#include <string>

#include "log_decoder.hpp"
#include "log_replay.hpp"
#include "reduce_spec.hpp"

namespace anydnn::driver {
namespace {

DecodeResult decode(const std::string& text, LogSource src = LogSource::Auto) {
  LogDecoder d(src);
  d.feed_text(text);
  return d.finish();
}

const char* kSeed002Forward =
    R"(miopenStatus_t miopenConvolutionForward(miopenHandle_t, const void*, miopenTensorDescriptor_t, const void*, miopenTensorDescriptor_t, const void*, miopenConvolutionDescriptor_t, miopenConvFwdAlgorithm_t, const void*, miopenTensorDescriptor_t, void*, void*, size_t){
alpha = 0x7ffd8b2cdd84
xDesc = 100, 3, 32, 32
x = 0x7f8e22e5b410
wDesc = 32, 3, 3, 3
w = 0x7f8e22e5b990
convDesc = 0, 0, 1, 1, 1, 1, 
algo = 1
beta = 0x7ffd8b2cdd88
yDesc = 100, 32, 30, 30
y = 0x7f8e22e8ff60
workSpace = 0x7f8e22e5ac70
workSpaceSize = 97200
}
)";

const char* kSeed002Weights =
    R"(miopenStatus_t miopenConvolutionBackwardWeights(miopenHandle_t, const void*, miopenTensorDescriptor_t, const void*, miopenTensorDescriptor_t, const void*, miopenConvolutionDescriptor_t, miopenConvBwdWeightsAlgorithm_t, const void*, miopenTensorDescriptor_t, void*, void*, size_t){
alpha = 0x7ffd8b2cdd64
dyDesc = 100, 32, 30, 30
dy = 0x7f8e22e8fca0
xDesc = 100, 3, 32, 32
x = 0x7f8e22e5b410
convDesc = 0, 0, 1, 1, 1, 1, 
algo = 1
beta = 0x7ffd8b2cdd68
dwDesc = 32, 3, 3, 3
dw = 0x7f8e22e8f9e0
workSpace = 0x7f8e22e5a9b0
workSpaceSize = 345600
}
)";

const std::string kConv100 =
    "conv -n 100 -c 3 -H 32 -W 32 -k 32 -y 3 -x 3 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 --in_layout NCHW "
    "--fil_layout NCHW --out_layout NCHW -m conv -g 1";

TEST(LogDecoder, Seed002BlocksBecomeDriverCommandsWithCounts) {
  const auto r = decode(std::string(kSeed002Forward) + kSeed002Weights + kSeed002Forward);
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command, kConv100 + " -F 1");
  EXPECT_EQ(r.commands[0].count, 2u);
  EXPECT_EQ(r.commands[0].first_line, 1u);
  EXPECT_EQ(r.commands[1].command, kConv100 + " -F 4");
  EXPECT_EQ(r.commands[1].count, 1u);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(LogDecoder, InterleavedThreadsThreeDGroupsTransposeNhwc) {
  const auto r = decode(
      "[1:0xa] MIOpen(HIP): miopenStatus_t miopenFindConvolutionForwardAlgorithm(...){\n"
      "[2:0xb] MIOpen(HIP): miopenStatus_t miopenConvolutionBackwardData(...){\n"
      "[1:0xa] MIOpen(HIP): \txDesc = {16, 64, 28, 28}, {50176, 1, 1792, 64}, packed, \n"
      "[2:0xb] MIOpen(HIP): \tdyDesc = {8, 32, 7, 7, 7}, {10976, 343, 49, 7, 1}, packed, \n"
      "[1:0xa] MIOpen(HIP): \twDesc = {32, 16, 3, 3}, {144, 1, 48, 16}, packed, \n"
      "[2:0xb] MIOpen(HIP): \twDesc = {32, 16, 3, 3, 3}, {432, 27, 9, 3, 1}, packed, \n"
      "[1:0xa] MIOpen(HIP): \tconvDesc = conv2d, miopenConvolution, miopenPaddingDefault, {1, 1}, "
      "{2, 2}, {1, 1}, 4, \n"
      "[2:0xb] MIOpen(HIP): \tconvDesc = conv3d, miopenConvolution, miopenPaddingDefault, {0, 0, "
      "0}, {1, 1, 1}, {1, 1, 1}, \n"
      "[2:0xb] MIOpen(HIP): \tdxDesc = {8, 16, 9, 9, 9}, {11664, 729, 81, 9, 1}, packed, \n"
      "[1:0xa] MIOpen(HIP): }\n"
      "[2:0xb] MIOpen(HIP): }\n"
      "MIOpen(HIP): miopenStatus_t miopenConvolutionForwardImmediate(...){\n"
      "MIOpen(HIP): \txDesc = {2, 8, 5, 5}, {200, 25, 5, 1}, packed, \n"
      "MIOpen(HIP): \twDesc = {8, 3, 3, 3}, {27, 9, 3, 1}, packed, \n"
      "MIOpen(HIP): \tconvDesc = conv2d, miopenTranspose, miopenPaddingDefault, {1, 1}, {2, 2}, "
      "{1, 1}, {1, 1}, \n"
      "MIOpen(HIP): }\n");
  ASSERT_EQ(r.commands.size(), 3u) << (r.warnings.empty() ? "" : r.warnings[0]);
  EXPECT_EQ(r.commands[0].command,
            "conv -n 16 -c 64 -H 28 -W 28 -k 32 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 "
            "--in_layout NHWC --fil_layout NHWC --out_layout NHWC -m conv -g 4 -F 1");
  EXPECT_EQ(r.commands[1].command,
            "conv -n 8 -c 16 --in_d 9 -H 9 -W 9 -k 32 --fil_d 3 -y 3 -x 3 --pad_d 0 -p 0 -q 0 "
            "--conv_stride_d 1 -u 1 -v 1 --dilation_d 1 -l 1 -j 1 --spatial_dim 3 --in_layout "
            "NCDHW --fil_layout NCDHW --out_layout NCDHW -m conv -g 1 -F 2");
  EXPECT_EQ(r.commands[2].command,
            "conv -n 2 -c 8 -H 5 -W 5 -k 3 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -Y 1 -X 1 "
            "--in_layout NCHW --fil_layout NCHW --out_layout NCHW -m trans -g 1 -F 1");
}

TEST(LogDecoder, CommandLinesOfEveryFamilyWithMIOpensQuirks) {
  const auto r = decode(
      // MIOpen's BN line: -s 1 printed for the running statistics -> the driver's -r 1.
      "MIOpen(HIP): Command [LogCmdBNorm] ./bin/MIOpenDriver bnorm -n 32 -c 64 -H 56 -W 56 -m 1 "
      "--forw 1 -b 0 -s 1 --layout NCHW\n"
      // anydnn's BN line already means what the driver means.
      "MIOpen(CPU): Command [LogCmdBNorm] ./bin/MIOpenDriver bnorm -n 2 -c 3 -H 4 -W 5 -m 1 "
      "--forw 1 -b 0 -s 1 --layout NHWC\n"
      "MIOpen(HIP): Command [LogCmdFindConvolution] ./bin/MIOpenDriver convfp16 -n 4 -c 8 -H 9 "
      "-W 9 -k 8 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 -t 1\n"
      "MIOpen(HIP): Command [LogCmdConvolution] MIOpenDriver.exe convfp16 -n 4 -c 8 -H 9 -W 9 "
      "-k 8 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 -t 1\n"
      // MIOpen echoes RNN commands on stdout without a prefix; its -t 1 is dropped.
      "./bin/MIOpenDriver rnn -n 4,3,3,1 -W 6 -H 8 -l 2 -b 1 -m gru -p 0 -r 1 -q 0 -k 4 -c 0 -F 1 "
      "-t 1 -w 1\n");
  ASSERT_EQ(r.commands.size(), 4u);
  EXPECT_EQ(r.commands[0].command,
            "bnorm -n 32 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -r 1 --layout NCHW");
  EXPECT_EQ(r.commands[1].command,
            "bnorm -n 2 -c 3 -H 4 -W 5 -m 1 --forw 1 -b 0 -s 1 --layout NHWC");
  EXPECT_EQ(r.commands[2].command,
            "convfp16 -n 4 -c 8 -H 9 -W 9 -k 8 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 --in_layout "
            "NCHW --fil_layout NCHW --out_layout NCHW -m conv -g 1 -F 1");
  EXPECT_EQ(r.commands[2].count, 2u) << "Find and run lines of one call share a command";
  EXPECT_EQ(r.commands[3].command,
            "rnn -n 4,3,3,1 -W 6 -H 8 -l 2 -b 1 -m gru -p 0 -r 1 -q 0 -k 4 -c 0 -F 1");
  // Forcing the source decides the BN swap for every line.
  EXPECT_EQ(decode("Command [LogCmdBNorm] ./bin/MIOpenDriver bnorm -n 1 -c 2 -H 3 -W 4 -m 1 "
                   "--forw 1 -b 0 -s 1 --layout NCHW",
                   LogSource::Anydnn)
                .commands.at(0)
                .command,
            "bnorm -n 1 -c 2 -H 3 -W 4 -m 1 --forw 1 -b 0 -s 1 --layout NCHW");
}

// LogCmdFusion lines replay on MIOpenDriver CBAInfer; the chains it cannot run are skipped with
// a warning, and the BN training chains' bnorm_activ lines (no driver) are not commands.
TEST(LogDecoder, FusionLinesBecomeCBAInferCommands) {
  const auto r = decode(
      "MIOpen(CPU): Command [LogCmdFusion] ./bin/MIOpenDriver CBAInfer -F 4 -n 4 -c 64 -H 56 "
      "-W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -m 3\n"
      "MIOpen(CPU): Command [LogCmdFusion] ./bin/MIOpenDriver CBAInferfp16 -F 2 -n 2 -c 5 -H 9 "
      "-W 7 -M 1 -m 3\n"
      "MIOpen(CPU): Command [LogCmdFusion] ./bin/MIOpenDriver CBAInfer -F 4 -n 1 -c 2 -H 5 -W 5 "
      "-k 2 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -m 3 --residual 1\n"
      "MIOpen(CPU): Command [LogCmdFusion] ./bin/MIOpenDriver bnorm_activ -n 32 -c 64 -H 56 "
      "-W 56 -m 1 --forw 1 -b 0 -s 1 -r 1 --layout NCHW --activ 3\n");
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command,
            "CBAInfer -F 4 -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 "
            "-g 1 -m 3");
  EXPECT_EQ(r.commands[1].command, "CBAInferfp16 -F 2 -n 2 -c 5 -H 9 -W 7 -M 1 -m 3");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("does not read '--residual'"), std::string::npos) << r.warnings[0];
}

// Find 2.0's API trace: a miopenFindSolutions block's problem becomes the conv command of its
// direction (type, layouts, transpose and output pads from the trace); a problem that is not
// one convolution has no command and says why.
TEST(LogDecoder, Find2ConvolutionProblemsBecomeConvCommands) {
  const auto block = [](const std::string& problem) {
    return "MIOpen(CPU): miopenStatus_t miopenFindSolutions(miopenHandle_t, miopenProblem_t, "
           "miopenFindOptions_t, miopenSolution**, size_t*, size_t){\n"
           "MIOpen(CPU): \thandle = stream: 0, device_id: cpu-avx512-2t\n"
           "MIOpen(CPU): \tproblem = " +
           problem +
           "\n"
           "MIOpen(CPU): \tmaxSolutions = 64\n"
           "MIOpen(CPU): }\n";
  };
  const auto r = decode(
      block("convolution(pads {1, 1}, strides {2, 1}, dilations {1, 1}, groups 2) backward "
            "weights {miopenTensorConvolutionX: {2, 6, 9, 11}, {594, 99, 11, 1}, type 1, "
            "miopenTensorConvolutionW: {4, 3, 3, 3}, {27, 9, 3, 1}, type 1, "
            "miopenTensorConvolutionY: {2, 4, 5, 11}, {220, 55, 11, 1}, type 1}") +
      block("convolution(transpose, pads {1, 1}, strides {2, 2}, dilations {1, 1}, groups 1, "
            "output pads {1, 0}) forward {miopenTensorConvolutionX: {2, 8, 5, 6}, {240, 1, 48, "
            "8}, type 0, miopenTensorConvolutionW: {8, 4, 3, 3}, {36, 1, 12, 4}, type 0, "
            "miopenTensorConvolutionY: {2, 4, 10, 11}, {440, 1, 44, 4}, type 0}") +
      block("activation(mode 3, 0, 0, 0) forward {miopenTensorActivationX: {2, 3}, {3, 1}, "
            "type 1, miopenTensorActivationY: {2, 3}, {3, 1}, type 1}"));
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command,
            "conv -n 2 -c 6 -H 9 -W 11 -k 4 -y 3 -x 3 -p 1 -q 1 -u 2 -v 1 -l 1 -j 1 --in_layout "
            "NCHW --fil_layout NCHW --out_layout NCHW -m conv -g 2 -F 4");
  EXPECT_EQ(r.commands[1].command,
            "convfp16 -n 2 -c 8 -H 5 -W 6 -k 4 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -Y 1 -X 0 "
            "--in_layout NHWC --fil_layout NHWC --out_layout NHWC -m trans -g 1 -F 1");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("not a single convolution problem"), std::string::npos)
      << r.warnings[0];
}

TEST(LogDecoder, BatchNormBlocksUseTheDriversMeaningOfSaveAndRun) {
  const auto r = decode(
      "MIOpen(CPU): miopenStatus_t miopenBatchNormalizationForwardTraining(...){\n"
      "MIOpen(CPU): \tbn_mode = 1\n"
      "MIOpen(CPU): \txDesc = {2, 4, 3, 3}, {36, 1, 12, 4}, packed, \n"
      "MIOpen(CPU): \tresultRunningMean = 0x55\n"
      "MIOpen(CPU): \tresultSaveMean = nullptr\n"
      "MIOpen(CPU): }\n"
      "MIOpen(CPU): miopenStatus_t miopenBatchNormalizationBackward_V2(...){\n"
      "MIOpen(CPU): \tbn_mode = 0\n"
      "MIOpen(CPU): \txDesc = {2, 4, 2, 3, 3}, {72, 18, 9, 3, 1}, packed, \n"
      "MIOpen(CPU): \tsavedMean = 0x99\n"
      "MIOpen(CPU): }\n");
  ASSERT_EQ(r.commands.size(), 2u) << (r.warnings.empty() ? "" : r.warnings[0]);
  EXPECT_EQ(r.commands[0].command,
            "bnorm -n 2 -c 4 -H 3 -W 3 -m 1 --forw 1 -b 0 -r 1 --layout NHWC");
  EXPECT_EQ(r.commands[1].command,
            "bnorm -n 2 -c 4 -D 2 -H 3 -W 3 -m 0 --forw 0 -b 1 -s 1 --layout NCDHW");
}

TEST(LogDecoder, BlocksAreNotCountedTwiceWhenCommandLinesExist) {
  const auto r = decode(std::string(kSeed002Forward) +
                        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 100 "
                        "-c 3 -H 32 -W 32 -k 32 -y 3 -x 3 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv "
                        "-g 1 -F 1 -t 1\n");
  ASSERT_EQ(r.commands.size(), 1u);
  EXPECT_EQ(r.commands[0].count, 1u);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.back().find("not counted"), std::string::npos);
}

TEST(LogDecoder, GarbageIsSkippedWithWarnings) {
  const auto r = decode(
      "MIOpenDriver conv -n $(rm -rf ~) -c 3\n"              // shell text: never replayed
      "./bin/MIOpenDriver conv -n -5 -c 3 -H 8 -W 8 -k 4\n"  // driver rejects it
      "./bin/MIOpenDriver frobnicate -n 3\n"                 // not a base: not a command
      "miopenStatus_t miopenConvolutionForward(...){\n"
      "xDesc = {2, 8, 5}, {}, packed, \n"  // 3-D tensor: unreadable
      "wDesc = 1, 2\n"
      "convDesc = 0, 0, 1, 1, 1, 1, \n"
      "}\n"
      "miopenStatus_t miopenConvolutionForward(...){\n"  // never closed
      "this is not a name = value line\n");
  EXPECT_TRUE(r.commands.empty());
  EXPECT_GE(r.warnings.size(), 4u);
  std::string all;
  for (const auto& w : r.warnings)
    all += w + "\n";
  EXPECT_NE(all.find("unexpected characters"), std::string::npos) << all;
  EXPECT_NE(all.find("never closed"), std::string::npos) << all;
  EXPECT_NE(all.find("is not {lens}, {strides}"), std::string::npos) << all;
  EXPECT_NE(all.find("sizes must be positive"), std::string::npos) << all;
}

// Random log-like bytes: the decoder neither crashes nor invents anything. Whatever it emits is a
// well-formed command (a driver base and a first-line number inside the text) that occurs at
// least once, and every warning names a line.
TEST(LogDecoder, RandomBytesNeverCrash) {
  std::mt19937 rng(12345);
  const std::string alphabet = "{}, =\t\nmiopenStatus_t()MIOpen(HIP):[]0123456789-xDescconvDesc";
  for (int round = 0; round < 200; ++round) {
    std::string text;
    for (int i = 0; i < 2000; ++i)
      text += alphabet[rng() % alphabet.size()];
    const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    LogDecoder d;
    d.feed_text(text);
    const DecodeResult r = d.finish();
    for (const DecodedCommand& c : r.commands) {
      EXPECT_TRUE(c.command.rfind("conv", 0) == 0 || c.command.rfind("bnorm", 0) == 0 ||
                  c.command.rfind("rnn", 0) == 0)
          << c.command;
      EXPECT_GE(c.count, 1u);
      EXPECT_GE(c.first_line, 1u);
      EXPECT_LE(c.first_line, lines);
    }
    for (const std::string& w : r.warnings)
      EXPECT_EQ(w.rfind("line ", 0), 0u) << w;
  }
}

TEST(LogReplay, ReadsTimeSolverAndVerification) {
  const auto ok = read_replay_output(
      "MIOpen Forward Conv. Algorithm: 3, Solution: 13/WinogradF4x3Fwd\n"
      "GPU Kernel Time Forward Conv. Elapsed: 0.5 ms (average)\n"
      "MIOpen Backward Data Conv. Algorithm: 1, Solution: 7/GemmBwdRest\n"
      "GPU Kernel Time Backward Data Conv. Elapsed: 0.25 ms (average)\n"
      "Forward Convolution Verifies OK on CPU reference (1e-08 < 1.5e-05)\n",
      0);
  EXPECT_DOUBLE_EQ(ok.time_ms, 0.75);
  EXPECT_EQ(ok.solvers, "WinogradF4x3Fwd + GemmBwdRest");
  EXPECT_EQ(ok.verified, "yes");
  EXPECT_DOUBLE_EQ(
      read_replay_output("GPU Kernel Min Time Forward Batch Normalization Elapsed: 0.2 ms\n", 0)
          .time_ms,
      0.2);
  EXPECT_EQ(read_replay_output("Forward Convolution FAILED: 1 > 1e-5\n", 4).verified, "FAILED");
  EXPECT_EQ(read_replay_output("MIOpenDriver: bad flag\n", 2).verified, "error (rc 2)");
}

// Tensor ops: LogCmdTensorOp lines pass through (run flags dropped); OpTensor / SetTensor /
// ScaleTensor blocks give the shape and -o (scalars are logged as pointers: driver defaults).
TEST(LogDecoder, TensorOpCommandsAndBlocks) {
  auto r = decode(
      "MIOpen(HIP): Command [LogCmdTensorOp] ./bin/MIOpenDriver tensoropfp16 -A 1.000000 -B "
      "2.000000 -G 0.000000 -n 4 -c 3 -H 2 -W 2 -o 3 -t 1\n");
  ASSERT_EQ(r.commands.size(), 1u);
  EXPECT_EQ(r.commands[0].command,
            "tensoropfp16 -A 1.000000 -B 2.000000 -G 0.000000 -n 4 -c 3 -H 2 -W 2 -o 3");
  r = decode(
      "MIOpen(CPU): miopenStatus_t miopenOpTensor(miopenHandle_t, ...){\n"
      "MIOpen(CPU): \ttensorOp = 3\n"
      "MIOpen(CPU): \taDesc = {2, 3, 4, 5, 6}, {360, 120, 30, 6, 1}, packed, \n"
      "MIOpen(CPU): }\n"
      "MIOpen(CPU): miopenStatus_t miopenSetTensor(miopenHandle_t, ...){\n"
      "MIOpen(CPU): \tyDesc = {1, 2, 3, 4}, {24, 12, 4, 1}, packed, \n"
      "MIOpen(CPU): }\n");
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command, "tensorop -n 2 -c 3 -H 4 -W 30 -o 5");
  EXPECT_EQ(r.commands[1].command, "tensorop -n 1 -c 2 -H 3 -W 4 -o 0");
  r = decode("Command [LogCmdTensorOp] ./bin/MIOpenDriver tensorop -n 1 --bogus 2\n");
  EXPECT_TRUE(r.commands.empty());
  EXPECT_EQ(r.warnings.size(), 1u);
}

// LogCmdRedux lines (MIOpen's "reducefp" base for float data, which the driver accepts) round
// trip; miopenReduceTensor blocks with the descriptor over several lines, as anydnn's trace
// prints it (every line prefixed) and as MIOpen's does (continuation lines unprefixed).
TEST(LogDecoder, ReduceCommandsAndBlocks) {
  const std::string line = "reducefp -A 0.5 -B 0.25 -C 1 -D 64,3,1,32 -I 0 -N 1 -O 6 -R 0,2,3";
  auto r = decode("MIOpen(HIP): Command [LogCmdRedux] ./bin/MIOpenDriver " + line + "\n" +
                  "MIOpenDriver reducefp16 -D 4,5 -R 1 -O 3 -I 1 -t 1 -V 1 -i 5\n");
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command, line);
  EXPECT_EQ(r.commands[1].command, "reducefp16 -A 1 -B 0 -C 1 -D 4,5 -I 1 -N 0 -O 3 -R 1");
  ReduceSpec s;
  ASSERT_FALSE(parse_reduce_line(line, s));
  EXPECT_EQ(to_reduce_driver_args(s), line);
  EXPECT_EQ(s.out_lens(), (std::vector<int>{1, 3, 1, 1}));
  ASSERT_FALSE(parse_reduce_line("reducefp64 -D 2,3 -R 1 -C 1", s));
  EXPECT_EQ(s.comp, 6);  // reducefp64 computes in double, as MIOpen's driver
  EXPECT_TRUE(parse_reduce_line("reduce -D 2,3 -R 2", s));
  EXPECT_TRUE(parse_reduce_line("reduce -D 2,x", s));
  EXPECT_TRUE(parse_reduce_line("reduceint -D 2,3 -R 1", s));
  r = decode(
      "MIOpen(CPU): miopenStatus_t miopenReduceTensor(miopenHandle_t, ...){\n"
      "MIOpen(CPU): \treduceTensorDesc = ReduceTensor Descriptor : \n"
      "MIOpen(CPU): Reduction Operation Type : 4\n"
      "MIOpen(CPU): Reduction CompType : 1\n"
      "MIOpen(CPU): NanPropagation Option : 1\n"
      "MIOpen(CPU): Indices Option : 1\n"
      "MIOpen(CPU): \n"
      "MIOpen(CPU): \taDesc = {2, 3, 4, 5, 6, 7}, {2520, 840, 210, 42, 7, 1}, packed, \n"
      "MIOpen(CPU): \tcDesc = {2, 1, 4, 1, 6, 1}, {24, 24, 6, 6, 1, 1}, packed, \n"
      "MIOpen(CPU): }\n"
      "MIOpen(HIP): miopenStatus_t miopenReduceTensor(miopenHandle_t, ...){\n"
      "MIOpen(HIP): \treduceTensorDesc = ReduceTensor Descriptor : \n"
      "Reduction Operation Type : 0\n"
      "Reduction CompType : 1\n"
      "NanPropagation Option : 0\n"
      "Indices Option : 0\n"
      "\n"
      "MIOpen(HIP): \taDesc = {9}, {1}, packed, \n"
      "MIOpen(HIP): \tcDesc = {1}, {1}, packed, \n"
      "MIOpen(HIP): }\n"
      "MIOpen(CPU): miopenStatus_t miopenReduceTensor(miopenHandle_t, ...){\n"
      "MIOpen(CPU): \treduceTensorDesc = 0x1234\n"
      "MIOpen(CPU): \taDesc = {9}, {1}, packed, \n"
      "MIOpen(CPU): \tcDesc = {1}, {1}, packed, \n"
      "MIOpen(CPU): }\n"
      // A lone '-' and a value past int's range where the numbers belong (the fuzz harness's
      // find: std::stoi threw out of the decoder): warnings, not exceptions.
      "MIOpen(CPU): miopenStatus_t miopenReduceTensor(miopenHandle_t, ...){\n"
      "MIOpen(CPU): \treduceTensorDesc = {op -, compType 1, nanOpt 0, indices 0}\n"
      "MIOpen(CPU): \taDesc = {9}, {1}, packed, \n"
      "MIOpen(CPU): \tcDesc = {1}, {1}, packed, \n"
      "MIOpen(CPU): }\n"
      "MIOpen(CPU): miopenStatus_t miopenReduceTensor(miopenHandle_t, ...){\n"
      "MIOpen(CPU): \treduceTensorDesc = {op 9999999999, compType 1, nanOpt 0, indices 0}\n"
      "MIOpen(CPU): \taDesc = {9}, {1}, packed, \n"
      "MIOpen(CPU): \tcDesc = {1}, {1}, packed, \n"
      "MIOpen(CPU): }\n");
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command, "reduce -A 1 -B 0 -C 1 -D 2,3,4,5,6,7 -I 1 -N 1 -O 4 -R 1,3,5");
  EXPECT_EQ(r.commands[1].command, "reduce -A 1 -B 0 -C 1 -D 9 -I 0 -N 0 -O 0 -R 0");
  // The third block's descriptor is only a pointer; the last two hold no readable numbers.
  ASSERT_EQ(r.warnings.size(), 3u);
  for (const auto& w : r.warnings)
    EXPECT_NE(w.find("not readable"), std::string::npos) << w;
}

// LogCmdPooling lines (MIOpen's, with -t 1; poolfp16 / anydnn's poolbfp16) round-trip to the
// same command; API-call blocks in MIOpen's descriptor format (no braces; AverageInclusive is
// "Unknown: 2") and with braces become pool commands, NHWC strides as the layout name; a
// descriptor that does not fit the tensor and a bad mode are warnings.
TEST(LogDecoder, PoolingCommandsAndBlocks) {
  auto r = decode(
      "MIOpen(HIP): Command [LogCmdPooling] ./bin/MIOpenDriver poolfp16 -M 0 --input "
      "32x64x56x56,200704x3136x56x1 -y 3 -x 3 -p 1 -q 1 -v 2 -u 2 -m max -F 1 -t 1\n"
      "MIOpen(CPU): Command [LogCmdPooling] ./bin/MIOpenDriver poolbfp16 -M 1 --input "
      "1x2x4x5x5,200x100x25x5x1 -Z 2 -y 3 -x 3 -o 0 -p 1 -q 1 -s 2 -v 1 -u 1 -m avg_in -F 0 "
      "-t 1\n");
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command,
            "poolfp16 -M 0 --input 32x64x56x56,200704x3136x56x1 -y 3 -x 3 -p 1 -q 1 -v 2 -u 2 "
            "-m max -F 1");
  EXPECT_EQ(r.commands[1].command,
            "poolbfp16 -M 1 --input 1x2x4x5x5,200x100x25x5x1 -Z 2 -y 3 -x 3 -o 0 -p 1 -q 1 -s 2 "
            "-v 1 -u 1 -m avg_in -F 0");
  r = decode(
      "MIOpen(HIP): miopenStatus_t miopenPoolingForward(miopenHandle_t, ...){\n"
      "MIOpen(HIP): \tpoolDesc = miopenPoolingMax, 3, 2, 1, 0, 2, 2, \n"
      "MIOpen(HIP): \txDesc = {2, 3, 7, 9}, {189, 1, 27, 3}, packed, \n"
      "MIOpen(HIP): }\n"
      "MIOpen(HIP): miopenStatus_t miopenPoolingBackward(miopenHandle_t, ...){\n"
      "MIOpen(HIP): \tpoolDesc = Unknown: 2, {2, 2, 2}, {0, 0, 1}, {1, 2, 2}, \n"
      "MIOpen(HIP): \txDesc = {1, 2, 4, 5, 6}, {240, 120, 30, 6, 1}, packed, \n"
      "MIOpen(HIP): }\n"
      "MIOpen(HIP): miopenStatus_t miopenPoolingForward(miopenHandle_t, ...){\n"
      "MIOpen(HIP): \tpoolDesc = miopenPoolingMax, 3, 3, 1, 1, \n"
      "MIOpen(HIP): \txDesc = {2, 3, 7, 9}, {189, 63, 9, 1}, packed, \n"
      "MIOpen(HIP): }\n"
      "MIOpen(HIP): miopenStatus_t miopenPoolingForward(miopenHandle_t, ...){\n"
      "MIOpen(HIP): \tpoolDesc = miopenPoolingMin, 3, 3, 1, 1, 1, 1, \n"
      "MIOpen(HIP): \txDesc = {2, 3, 7, 9}, {189, 63, 9, 1}, packed, \n"
      "MIOpen(HIP): }\n");
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].command,
            "pool -M 0 --input 2x3x7x9,NHWC -y 3 -x 2 -p 1 -q 0 -v 2 -u 2 -m max -F 1");
  EXPECT_EQ(r.commands[1].command,
            "pool -M 1 --input 1x2x4x5x6,NCDHW -Z 2 -y 2 -x 2 -o 0 -p 0 -q 1 -s 1 -v 2 -u 2 -m "
            "avg_in -F 0");
  EXPECT_EQ(r.warnings.size(), 2u);
}

}  // namespace
}  // namespace anydnn::driver
