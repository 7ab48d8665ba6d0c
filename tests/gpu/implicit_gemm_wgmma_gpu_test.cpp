// The CUTLASS sm90 (TMA + wgmma) solvers, ImplicitGemmWgmma{Fwd,Bwd,Wrw}[3d]<tile>, one test per
// solver and problem (the solver's name in the test name): NHWC in place and NCHW or unaligned
// channels through the workspace, fp16 and bf16 in every direction, fp32 through TF32 forward,
// 1x1, 3x3, 3x5 and 7x7 filters, 2-D and 3-D, strides 1 and 2, dilation, odd sizes, batch 1,
// and layers large enough for many tiles and k steps. Each runs alone against the double
// reference with a poisoned output and workspace, twice for the same bits
// (conv_solver_check.hpp). Also: the solvers must apply to every problem they are meant for (a
// solver that stops applying fails here instead of quietly handing its layers to slower
// kernels), refuse what they cannot do with the reason, and an invoker called on new buffers must
// use them (its cached TMA descriptors embed the addresses). The shared problem list runs
// through conv_solvers_gpu_test.cpp too.
#include <gtest/gtest.h>

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
#include "gpu/conv_solver_check.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;

#if ANYDNN_HAVE_WGMMA

// As implicit_gemm_tc_gpu_test.cpp: TF32 rounds each input by <= 2^-11 relative.
constexpr double kTf32Tolerance = 2e-3;

const std::vector<std::string>& solvers() {
  static const std::vector<std::string> names = {
      "ImplicitGemmWgmmaFwd128x128",   "ImplicitGemmWgmmaFwd128x128c2",
      "ImplicitGemmWgmmaFwd128x64",    "ImplicitGemmWgmmaFwd64x128",
      "ImplicitGemmWgmmaBwd128x128",   "ImplicitGemmWgmmaBwd128x64",
      "ImplicitGemmWgmmaBwd64x128",    "ImplicitGemmWgmmaWrw128x128",
      "ImplicitGemmWgmmaWrw64x128",    "ImplicitGemmWgmmaWrw128x64",
      "ImplicitGemmWgmmaFwd3d128x128", "ImplicitGemmWgmmaBwd3d128x128",
      "ImplicitGemmWgmmaWrw3d128x128"};
  return names;
}

ConvDirection direction_of(const std::string& name) {
  if (name.find("Fwd") != std::string::npos) return ConvDirection::Forward;
  if (name.find("Bwd") != std::string::npos) return ConvDirection::BackwardData;
  return ConvDirection::BackwardWeights;
}

const std::vector<std::string>& problems() {
  static const std::vector<std::string> lines = {
      // 3x3 stride 1, NHWC in place, fp16 and bf16.
      "convfp16 -n 2 -c 64 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      "convbfp16 -n 2 -c 32 -H 14 -W 14 -k 64 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      // 3x3 stride 2, odd sizes, NCHW (every tensor through the workspace), fp16.
      "convfp16 -n 2 -c 32 -H 15 -W 13 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 0",
      // 1x1 NHWC bf16; 1x1 stride 2 NCHW bf16 (dx pixels no tap reaches).
      "convbfp16 -n 2 -c 64 -H 7 -W 7 -k 32 -y 1 -x 1 -F 0 --in_layout NHWC --fil_layout NHWC "
      "--out_layout NHWC",
      "convbfp16 -n 2 -c 32 -H 14 -W 14 -k 64 -y 1 -x 1 -u 2 -v 2 -F 0",
      // Channels not multiples of 8 (padded in the workspace): C = 5, K = 12; the stem's C = 3.
      "convfp16 -n 2 -c 5 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -F 0",
      "convfp16 -n 2 -c 16 -H 8 -W 8 -k 12 -y 3 -x 3 -p 1 -q 1 -F 0",
      "convfp16 -n 2 -c 3 -H 32 -W 32 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      // Non-square filter, stride only along W, batch 1.
      "convfp16 -n 1 -c 24 -H 9 -W 17 -k 40 -y 3 -x 5 -p 0 -q 2 -u 1 -v 2 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      // Dilation 2, stride 1.
      "convfp16 -n 2 -c 16 -H 12 -W 12 -k 32 -y 3 -x 3 -p 2 -q 2 -l 2 -j 2 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      // Many tiles and k steps: a ResNet stage-4 3x3 and a stage-2 1x1 at small batches.
      "convfp16 -n 4 -c 256 -H 14 -W 14 -k 256 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      "convbfp16 -n 4 -c 64 -H 56 -W 56 -k 256 -y 1 -x 1 -F 0 --in_layout NHWC --fil_layout NHWC "
      "--out_layout NHWC",
      // Backward weights' split-K: 9 output tiles and a 98-tile reduction, split 14 ways (7 k
      // tiles each) into one wave of 126 blocks on an H100.
      "convfp16 -n 2 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      // 3-D: NDHWC 3x3x3; NCDHW stride 2 with odd sizes, bf16; odd channels 1x1x1.
      "convfp16 -n 2 -c 16 --in_d 6 -H 8 -W 8 -k 32 --fil_d 3 -y 3 -x 3 --pad_d 1 -p 1 -q 1 "
      "--spatial_dim 3 -F 0 --in_layout NDHWC --fil_layout NDHWC --out_layout NDHWC",
      "convbfp16 -n 1 -c 8 --in_d 5 -H 9 -W 7 -k 16 --fil_d 3 -y 3 -x 3 --pad_d 1 -p 1 -q 1 "
      "--conv_stride_d 2 -u 2 -v 2 --spatial_dim 3 -F 0",
      "convfp16 -n 2 -c 5 --in_d 4 -H 6 -W 6 -k 12 --fil_d 1 -y 1 -x 1 --spatial_dim 3 -F 0",
      // fp32 through TF32 (forward only): NCHW 3x3, NHWC stride 2.
      "conv -n 2 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 0",
      "conv -n 2 -c 32 -H 16 -W 16 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 0 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      // A filter larger than the padded input: MIOpen's output is clamped to 1x1, which these
      // kernels would derive as 0x0 (refused; the fp32 one crashed CUTLASS's set-up once).
      "convfp16 -n 1 -c 8 -H 4 -W 4 -k 8 -y 5 -x 5 -F 0",
      "conv -n 1 -c 2 -H 4 -W 4 -k 3 -y 5 -x 5 -F 0",
  };
  return lines;
}

// Why the solver is not meant for the problem (empty when it is).
std::string outside_limits(const std::string& name, const ConvProblem& p) {
  const ConvDirection d = direction_of(name);
  const bool three_d = name.find("3d") != std::string::npos;
  if (three_d && p.spatial_dims() != 3) return "only 3-D";
  if (!three_d && p.spatial_dims() != 2) return "only 2-D";
  if (d != ConvDirection::Forward && p.data_type() == miopenFloat) return "only forward";
  if (d == ConvDirection::BackwardData &&
      (p.strides()[0] != 1 || p.strides()[1] != 1 || p.strides()[2] != 1))
    return "stride > 1";
  const auto& f = p.filter_size();
  for (int i = 0; i < 3; ++i)
    if (static_cast<long>(p.in_size()[i]) + 2L * p.pads()[i] <
        static_cast<long>(p.dilations()[i] * (f[i] - 1) + 1))
      return "output clamped to 1";
  return "";
}

struct Case {
  std::string solver;
  size_t problem;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string& s : solvers())
    for (size_t i = 0; i < problems().size(); ++i)
      out.push_back({s, i});
  return out;
}

class ImplicitGemmWgmma : public ::testing::TestWithParam<Case> {};

TEST_P(ImplicitGemmWgmma, MatchesReferenceWhereMeant) {
  REQUIRE_GPU();
  const Case c = GetParam();
  ConvSpec spec;
  ASSERT_FALSE(driver::parse_conv_line(problems()[c.problem], spec)) << problems()[c.problem];
  const test::BuiltConv b = test::build_conv(spec);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.conv_allow_tf32 = true;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const ConvProblem p(direction_of(c.solver), b.x, b.w, b.conv, b.y);
  SCOPED_TRACE(p.key());
  const auto* entry = backend->solvers<ConvSolver>().find(c.solver);
  ASSERT_NE(entry, nullptr);
  const ConvSolver& solver = *entry->solver;
  const Applicability a = solver.applicable(ctx, p);
  if (test::cuda_sm_version() != 90) {
    EXPECT_FALSE(a) << "sm_90a code accepted on compute capability " << test::cuda_sm_version() / 10
                    << "." << test::cuda_sm_version() % 10;
    return;
  }
  if (const std::string why = outside_limits(c.solver, p); !why.empty()) {
    EXPECT_FALSE(a) << "accepted a problem with " << why;
    EXPECT_NE(a.reason.find(why), std::string::npos) << a.reason;
    return;
  }
  ASSERT_TRUE(a) << a.reason;
  const double tol = test::direction_tolerance(p, p.data_type() == miopenFloat
                                                      ? kTf32Tolerance
                                                      : ref::conv_default_tolerance(p.data_type()));
  test::run_and_check(ctx, spec, p, solver, rng, tol);
}

INSTANTIATE_TEST_SUITE_P(Problems, ImplicitGemmWgmma, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           return info.param.solver + "_" + std::to_string(info.param.problem);
                         });

// TF32 off: fp32 is not theirs (the switch is a find-db key part, as for the 2.x kernels).
TEST(ImplicitGemmWgmmaRejects, Fp32WithoutTf32) {
  REQUIRE_GPU();
  ConvSpec spec;
  ASSERT_FALSE(
      driver::parse_conv_line("conv -n 2 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1", spec));
  const test::BuiltConv b = test::build_conv(spec);
  Config cfg;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  for (const std::string& name : solvers()) {
    const ConvProblem p(direction_of(name), b.x, b.w, b.conv, b.y);
    const Applicability a = backend->solvers<ConvSolver>().find(name)->solver->applicable(ctx, p);
    EXPECT_FALSE(a) << name;
    EXPECT_FALSE(a.reason.empty()) << name;
  }
}

// One invoker, two sets of buffers (inputs, output and workspace): the second call must read
// and write the new ones and give the same bits. The CUTLASS invokers keep their kernel params
// between calls (TMA descriptors for sm90, which embed the addresses; the 2.x operator, whose
// split-K partials or serial semaphores live in the workspace) and must swap the pointers when an
// address changes; a poisoned workspace must not deadlock the serial semaphores.
TEST(ImplicitGemmInvoker, FollowsNewBuffers) {
  REQUIRE_GPU();
  std::mt19937 rng(test::fresh_seed());
  Config cfg;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const char* const k3x3 =
      "convfp16 -n 2 -c 32 -H 14 -W 14 -k 64 -y 3 -x 3 -p 1 -q 1 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC";
  const char* const k1x1 =
      "convfp16 -n 2 -c 32 -H 14 -W 14 -k 64 -y 1 -x 1 --in_layout NHWC --fil_layout NHWC "
      "--out_layout NHWC";
  const char* const k3x3_fp32_nchw = "conv -n 2 -c 32 -H 14 -W 14 -k 64 -y 3 -x 3 -p 1 -q 1";
  const std::pair<const char*, const char*> cases[] = {
      {"ImplicitGemmWgmmaFwd128x128", k3x3},  {"ImplicitGemmWgmmaWrw128x128", k3x3},
      {"ImplicitGemmWgmmaWrw64x128", k1x1},   {"ImplicitGemmTensorCoreFwd", k3x3},
      {"ImplicitGemmTensorCoreWrw", k3x3},    {"ImplicitGemmTensorCoreWrwSerial", k3x3},
      {"ImplicitGemmSimtWrw", k3x3_fp32_nchw}};
  for (const auto& [name, line] : cases) {
    SCOPED_TRACE(name);
    ConvSpec spec;
    ASSERT_FALSE(driver::parse_conv_line(line, spec));
    const test::BuiltConv b = test::build_conv(spec);
    const ConvSolver& s = *backend->solvers<ConvSolver>().find(name)->solver;
    const ConvDirection dir = std::string(name).find("Wrw") != std::string::npos
                                  ? ConvDirection::BackwardWeights
                                  : ConvDirection::Forward;
    const ConvProblem p(dir, b.x, b.w, b.conv, b.y);
    if (!s.applicable(ctx, p)) {  // sm_90a code elsewhere than compute capability 9.0
      EXPECT_NE(test::cuda_sm_version(), 90) << s.applicable(ctx, p).reason;
      continue;
    }
    driver::HostTensor x = test::host_tensor(p.x()), w = test::host_tensor(p.w()),
                       y = test::host_tensor(p.y());
    driver::HostTensor* out = dir == ConvDirection::Forward ? &y : &w;
    for (driver::HostTensor* t : {&x, &w, &y})
      if (t != out) test::fill_random(*t, rng);
    const auto expected = test::conv_reference(p, test::conv_params(spec), x, w, y);
    const size_t ws_size = s.workspace_size(ctx, p);
    driver::HostTensor first = *out, second = *out;
    const ConvInvoker inv = s.make_invoker(ctx, p);
    // Both sets alive at once: the second cannot reuse the first one's addresses.
    test::DeviceTensor dx[2] = {test::DeviceTensor(x), test::DeviceTensor(x)};
    test::DeviceTensor dw[2] = {test::DeviceTensor(w), test::DeviceTensor(w)};
    test::DeviceTensor dy[2] = {test::DeviceTensor(y), test::DeviceTensor(y)};
    test::DeviceTensor ws[2] = {test::DeviceTensor(ws_size), test::DeviceTensor(ws_size)};
    driver::HostTensor* results[2] = {&first, &second};
    for (int i = 0; i < 2; ++i) {
      test::DeviceTensor* dout = out == &y ? &dy[i] : &dw[i];
      dout->poison();
      ws[i].poison();
      inv(ConvBuffers{dx[i].data(), dw[i].data(), dy[i].data(),
                      ws_size == 0 ? nullptr : ws[i].data(), ws_size});
      ASSERT_CUDA_OK(cudaDeviceSynchronize());
      dout->download(*results[i]);
    }
    EXPECT_LE(ref::relative_rms(expected, ref::to_logical(second.view())), test::conv_tolerance(p));
    EXPECT_TRUE(first.bytes == second.bytes);
  }
}

#else

TEST(ImplicitGemmWgmma, NotBuilt) {
  GTEST_SKIP() << "built without sm_90a code (CMAKE_CUDA_ARCHITECTURES without 90, or no CUTLASS)";
}

#endif

}  // namespace
}  // namespace anydnn
