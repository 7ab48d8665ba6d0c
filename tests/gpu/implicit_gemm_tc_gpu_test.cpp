// The CUTLASS tensor-core solvers
// (ImplicitGemmTensorCore{Fwd,FwdFixedChannels,Bwd,BwdS1,BwdNarrow,Wrw}) on problems they accept:
// NHWC and NCHW (transposed through the workspace), channel counts that are not multiples of the
// access width (zero-padded in the workspace), fp16, bf16 and fp32 through TF32, 1x1, 3x3 and 7x7
// filters, strides 1 and 2, backward weights with several split-K slices. Each solver runs alone on
// device buffers with a NaN-poisoned output and workspace, is checked against the double reference,
// and must give the same bits when run again. The shared solver test (conv_solvers_gpu_test.cpp)
// covers the problem list as well.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv_reference.hpp"
#include "conv_test_util.hpp"
#include "core/config.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "gpu/conv_solver_check.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;

#if ANYDNN_HAVE_CUTLASS

// TF32 keeps 10 explicit mantissa bits: each input is rounded with relative error <= 2^-11
// (4.9e-4), so a product is off by <= ~1e-3 and a sum of many random-sign products by ~4e-4
// of its rms; relative_rms divides by the largest output, which makes it smaller still. 2e-3
// leaves room for that and is still ~500x below what one misplaced element would cost.
constexpr double kTf32Tolerance = 2e-3;

// The tensor-core solvers of a direction, in registry order. Backward data has three kernels:
// the narrow-tile one (at most 32 input channels), the unit-stride one (stride 1) and the
// strided one (anything); each runs alone on every problem it accepts.
std::vector<std::string> solvers_of(ConvDirection d) {
  if (d == ConvDirection::Forward)
    return {"ImplicitGemmTensorCoreFwdFixedChannels", "ImplicitGemmTensorCoreFwd"};
  if (d == ConvDirection::BackwardData)
    return {"ImplicitGemmTensorCoreBwdNarrow", "ImplicitGemmTensorCoreBwdS1",
            "ImplicitGemmTensorCoreBwd"};
  return {"ImplicitGemmTensorCoreWrw", "ImplicitGemmTensorCoreWrwSerial"};
}

// Why `name` is not meant for `p` (empty when it is): the specialised kernels' limits.
std::string outside_limits(const std::string& name, const ConvProblem& p) {
  if (name == "ImplicitGemmTensorCoreBwdS1" && (p.strides()[1] != 1 || p.strides()[2] != 1))
    return "stride > 1";
  if (name == "ImplicitGemmTensorCoreBwdNarrow" && p.in_channels() > 32)
    return "more than 32 input channels";
  if (name == "ImplicitGemmTensorCoreFwdFixedChannels" && p.in_channels() > 4)
    return "more than 4 input channels";
  return "";
}

double tolerance(const ConvProblem& p) {
  return test::direction_tolerance(p, p.data_type() == miopenFloat
                                          ? kTf32Tolerance
                                          : ref::conv_default_tolerance(p.data_type()));
}

Config tf32_config(bool allow) {
  Config cfg;
  cfg.conv_allow_tf32 = allow;
  return cfg;
}

class ImplicitGemmTc : public ::testing::TestWithParam<std::string> {};

TEST_P(ImplicitGemmTc, AppliesFirstAndMatchesReference) {
  REQUIRE_GPU();
  ConvSpec spec;
  ASSERT_FALSE(driver::parse_conv_line(GetParam(), spec)) << GetParam();
  const test::BuiltConv b = test::build_conv(spec);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  const Config cfg = tf32_config(true);
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};

  for (const ConvDirection dir :
       {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeights}) {
    if (spec.forw != 0 && (spec.forw & static_cast<int>(dir)) == 0) continue;
    const ConvProblem p(dir, b.x, b.w, b.conv, b.y);
    SCOPED_TRACE(p.key() + " " + direction_name(dir));
    bool first = true;
    for (const std::string& name : solvers_of(dir)) {
      SCOPED_TRACE(name);
      const auto* entry = backend->solvers<ConvSolver>().find(name);
      ASSERT_NE(entry, nullptr);
      const ConvSolver& solver = *entry->solver;
      const Applicability a = solver.applicable(ctx, p);
      if (const std::string why = outside_limits(name, p); !why.empty()) {
        EXPECT_FALSE(a) << "accepted a problem with " << why;
        EXPECT_NE(a.reason.find(why), std::string::npos) << a.reason;
        continue;
      }
      ASSERT_TRUE(a) << a.reason;
      // The first of the direction's tensor-core solvers that applies is the first applicable
      // registry entry after the sm90 ones (implicit_gemm_wgmma_gpu_test.cpp), which come first
      // where the device takes them.
      if (first) {
        for (const auto& e : backend->solvers<ConvSolver>().entries()) {
          if (!e.solver->applicable(ctx, p)) continue;
          if (e.solver->name().starts_with("ImplicitGemmWgmma")) continue;
          EXPECT_EQ(e.solver->name(), solver.name());
          break;
        }
        first = false;
      }
      test::run_and_check(ctx, spec, p, solver, rng, tolerance(p));
    }
  }
}

// Channel counts that are multiples of 8 (fp16/bf16) or 4 (fp32), CUTLASS's 128-bit accesses,
// run in place when NHWC; the others are padded with zero channels in the workspace.
INSTANTIATE_TEST_SUITE_P(
    Problems, ImplicitGemmTc,
    ::testing::Values(
        // 3x3 stride 1, NHWC, fp16; ResNet-like stage scaled down.
        "convfp16 -n 2 -c 64 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 0 --in_layout "
        "NHWC --fil_layout NHWC --out_layout NHWC",
        // 3x3 stride 2 with odd sizes, NCHW (all three tensors through the workspace), fp16.
        "convfp16 -n 2 -c 32 -H 15 -W 13 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 0",
        // 1x1, NHWC, bf16.
        "convbfp16 -n 2 -c 64 -H 7 -W 7 -k 32 -y 1 -x 1 -F 0 --in_layout NHWC --fil_layout NHWC "
        "--out_layout NHWC",
        // 1x1 stride 2, NCHW, bf16: backward data has dx pixels no filter tap reaches (zeros).
        "convbfp16 -n 2 -c 32 -H 14 -W 14 -k 64 -y 1 -x 1 -u 2 -v 2 -F 0",
        // 7x7 stride 2 pad 3 (the ResNet stem with 8 input channels), NCHW, fp16.
        "convfp16 -n 1 -c 8 -H 32 -W 32 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -F 0",
        // Mixed layouts: only x goes through the workspace, bf16.
        "convbfp16 -n 2 -c 16 -H 10 -W 12 -k 24 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NCHW "
        "--fil_layout NHWC --out_layout NHWC",
        // Non-square filter and asymmetric padding / stride, NHWC, fp16.
        "convfp16 -n 3 -c 24 -H 9 -W 17 -k 40 -y 3 -x 5 -p 0 -q 2 -u 1 -v 2 -F 0 --in_layout "
        "NHWC --fil_layout NHWC --out_layout NHWC",
        // Dilation 2 (forward and weights; backward data rejects it), NHWC, fp16.
        "convfp16 -n 2 -c 16 -H 12 -W 12 -k 32 -y 3 -x 3 -p 2 -q 2 -l 2 -j 2 -F 5 --in_layout "
        "NHWC --fil_layout NHWC --out_layout NHWC",
        // fp32 through TF32: NCHW 3x3, NHWC stride 2, NCHW 1x1.
        "conv -n 2 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 0",
        "conv -n 2 -c 32 -H 16 -W 16 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 0 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC",
        "conv -n 4 -c 64 -H 8 -W 8 -k 64 -y 1 -x 1 -F 0",
        // --- channel counts padded in the workspace ---
        // C = 5 (-> 8), NCHW fp16; K = 12 (-> 16), NCHW fp16; K = 6 (-> 8), NCHW TF32.
        "convfp16 -n 2 -c 5 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -F 0",
        "convfp16 -n 2 -c 16 -H 8 -W 8 -k 12 -y 3 -x 3 -p 1 -q 1 -F 0",
        "conv -n 2 -c 16 -H 8 -W 8 -k 6 -y 3 -x 3 -p 1 -q 1 -F 0",
        // The ResNet stem: C = 3 (-> 8), 7x7 stride 2 pad 3, NHWC fp16 (x and w padded, y in
        // place); backward weights splits its reduction.
        "convfp16 -n 2 -c 3 -H 32 -W 32 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -F 0 --in_layout "
        "NHWC --fil_layout NHWC --out_layout NHWC",
        // C = 3, NCHW bf16 (transposed and padded at once), odd sizes.
        "convbfp16 -n 2 -c 3 -H 17 -W 15 -k 32 -y 3 -x 3 -p 1 -q 1 -F 0",
        // At most 4 channels (the fixed-channels kernel first): the stem in TF32 NCHW with odd
        // sizes; C = 4 NHWC fp16 in place, dilated; C = 1 bf16 with a 5x5 stride-2 filter.
        "conv -n 2 -c 3 -H 23 -W 21 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -F 1",
        "convfp16 -n 2 -c 4 -H 16 -W 16 -k 16 -y 3 -x 3 -p 2 -q 2 -l 2 -j 2 -F 1 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC",
        "convbfp16 -n 1 -c 1 -H 20 -W 31 -k 8 -y 5 -x 5 -u 2 -v 2 -F 1",
        // K = 5 (-> 8), NHWC fp16: x in place, w with padded rows, y padded.
        "convfp16 -n 2 -c 16 -H 10 -W 10 -k 5 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC",
        // C = 6, K = 5 (both -> 8), NCHW TF32.
        "conv -n 2 -c 6 -H 9 -W 9 -k 5 -y 3 -x 3 -p 1 -q 1 -F 0",
        // --- backward weights with a long reduction: many split-K slices ---
        // N*P*Q = 12544 over a 64 x 576 output: ~53 slices on an H100 (fp16, NHWC in place).
        "convfp16 -n 4 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 4 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC",
        // TF32 NCHW 3136 x (32 x 288): the fp32 reduction kernel.
        "conv -n 4 -c 32 -H 28 -W 28 -k 32 -y 3 -x 3 -p 1 -q 1 -F 4",
        // bf16 1x1 c64 -> k256 (2 output tiles, 64 slices).
        "convbfp16 -n 4 -c 64 -H 28 -W 28 -k 256 -y 1 -x 1 -F 4 --in_layout NHWC --fil_layout "
        "NHWC --out_layout NHWC"),
    [](const auto& info) { return test::test_name_of(info.param); });

// Builds the forward problem of a driver line.
ConvProblem problem_of(const std::string& line, ConvDirection dir) {
  ConvSpec spec;
  EXPECT_FALSE(driver::parse_conv_line(line, spec)) << line;
  const test::BuiltConv b = test::build_conv(spec);
  return ConvProblem(dir, b.x, b.w, b.conv, b.y);
}

TEST(ImplicitGemmTcRejects, Fp32WithoutTf32) {
  REQUIRE_GPU();
  const Config cfg = tf32_config(false);
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  for (const ConvDirection dir :
       {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeights}) {
    const ConvProblem p =
        problem_of("conv -n 2 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 0", dir);
    for (const std::string& name : solvers_of(dir)) {
      const auto* e = backend->solvers<ConvSolver>().find(name);
      ASSERT_NE(e, nullptr);
      const Applicability a = e->solver->applicable(ctx, p);
      EXPECT_FALSE(a) << name;
      EXPECT_EQ(a.reason, "TF32 not allowed (ANYDNN_CONV_ALLOW_TF32=1)");
      // The same problem is taken once TF32 is allowed (by the solvers meant for it: not the
      // fixed-channels kernel, 16 channels).
      const Config allow = tf32_config(true);
      if (outside_limits(name, p).empty())
        EXPECT_TRUE(e->solver->applicable(ExecutionContext{allow, *backend}, p)) << name;
    }
  }
}

TEST(ImplicitGemmTcRejects, WhatCutlassCannotDo) {
  REQUIRE_GPU();
  const Config cfg = tf32_config(true);
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const auto rejects = [&](const std::string& line, ConvDirection dir, const std::string& why) {
    const ConvProblem p = problem_of(line, dir);
    for (const std::string& name : solvers_of(dir)) {
      const auto* e = backend->solvers<ConvSolver>().find(name);
      ASSERT_NE(e, nullptr);
      const Applicability a = e->solver->applicable(ctx, p);
      EXPECT_FALSE(a) << name << ": " << line;
      EXPECT_NE(a.reason.find(why), std::string::npos) << name << ": " << line << ": " << a.reason;
    }
  };
  // Groups.
  rejects("convfp16 -n 2 -c 16 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -g 2 -F 1",
          ConvDirection::Forward, "groups > 1");
  // Dilation with the strided backward-data kernel.
  rejects("convfp16 -n 2 -c 16 -H 12 -W 12 -k 16 -y 3 -x 3 -p 2 -q 2 -l 2 -j 2 -F 2",
          ConvDirection::BackwardData, "dilation > 1");
  // 3-D.
  rejects(
      "convfp16 -n 1 -c 8 --in_d 4 -H 5 -W 5 -k 8 --fil_d 1 -y 1 -x 1 --spatial_dim 3 -F 1 "
      "--in_layout NDHWC --fil_layout NDHWC --out_layout NDHWC",
      ConvDirection::Forward, "only 2-D");
}

// Channel counts off the access width are taken now (padded), in every direction.
TEST(ImplicitGemmTcPadding, OddChannelsAccepted) {
  REQUIRE_GPU();
  const Config cfg = tf32_config(true);
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  for (const char* line : {"convfp16 -n 2 -c 3 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1",
                           "convfp16 -n 2 -c 5 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1",
                           "convfp16 -n 2 -c 16 -H 8 -W 8 -k 12 -y 3 -x 3 -p 1 -q 1",
                           "conv -n 2 -c 16 -H 8 -W 8 -k 6 -y 3 -x 3 -p 1 -q 1"}) {
    for (const ConvDirection dir :
         {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeights}) {
      const ConvProblem p = problem_of(line, dir);
      for (const std::string& name : solvers_of(dir)) {
        if (!outside_limits(name, p).empty()) continue;  // e.g. fixed channels, C > 4
        const auto* e = backend->solvers<ConvSolver>().find(name);
        ASSERT_NE(e, nullptr);
        const Applicability a = e->solver->applicable(ctx, p);
        EXPECT_TRUE(a) << name << ": " << line << " " << direction_name(dir) << ": " << a.reason;
        // The padded copies live in the workspace.
        EXPECT_GT(e->solver->workspace_size(ctx, p), 0u) << name << ": " << line;
      }
    }
  }
  // Aligned NHWC forward runs in place: no workspace at all.
  const ConvProblem p = problem_of(
      "convfp16 -n 2 -c 16 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 --in_layout NHWC --fil_layout NHWC "
      "--out_layout NHWC",
      ConvDirection::Forward);
  const auto* e = backend->solvers<ConvSolver>().find("ImplicitGemmTensorCoreFwd");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->solver->workspace_size(ctx, p), 0u);
  // So does the fixed-channels kernel on exactly 4 NHWC channels.
  const ConvProblem p4 = problem_of(
      "convfp16 -n 2 -c 4 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 --in_layout NHWC --fil_layout NHWC "
      "--out_layout NHWC",
      ConvDirection::Forward);
  const auto* fixed = backend->solvers<ConvSolver>().find("ImplicitGemmTensorCoreFwdFixedChannels");
  ASSERT_NE(fixed, nullptr);
  ASSERT_TRUE(fixed->solver->applicable(ctx, p4));
  EXPECT_EQ(fixed->solver->workspace_size(ctx, p4), 0u);
}

// The split count fills the device (~2 waves of 128x128 tiles) and the workspace is exactly the
// fp32 partials: slices * K * R*S*C * 4 bytes (NHWC aligned: no staged copies).
TEST(ImplicitGemmTcSplitK, WorkspaceIsThePartials) {
  REQUIRE_GPU();
  const Config cfg = tf32_config(true);
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  int device = 0, sms = 0;
  ASSERT_CUDA_OK(cudaGetDevice(&device));
  ASSERT_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const ConvProblem p = problem_of(
      "convfp16 -n 8 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 --in_layout NHWC --fil_layout "
      "NHWC --out_layout NHWC",
      ConvDirection::BackwardWeights);
  const auto* e = backend->solvers<ConvSolver>().find("ImplicitGemmTensorCoreWrw");
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->solver->applicable(ctx, p));
  // GEMM 64 x 576 (1 x 5 tiles) summing over 8*56*56 = 25088 (k-tile 64): at most 64 slices.
  const size_t ctas = 5;
  const size_t slices = std::clamp<size_t>((2 * sms + ctas - 1) / ctas, 1, 64);
  EXPECT_GT(slices, 1u);
  EXPECT_EQ(e->solver->workspace_size(ctx, p), slices * 64 * 576 * 4);
}

#else

TEST(ImplicitGemmTc, NotBuilt) {
  GTEST_SKIP() << "built without the CUTLASS headers (pip install nvidia-cutlass)";
}

#endif

}  // namespace
}  // namespace anydnn
