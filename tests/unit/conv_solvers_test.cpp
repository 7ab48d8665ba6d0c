// Every CPU convolution solver, alone (no Find, no selection), on every problem of the shared
// lists, against the double-accumulating reference with MIOpen's rms tolerances. Outputs are
// poisoned with NaN before each run, so an element a solver forgets to write fails the check.
#include <gtest/gtest.h>

#include <set>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv_reference.hpp"
#include "conv_test_util.hpp"
#include "core/conv_descriptor.hpp"
#include "core/cpu_isa.hpp"
#include "core/tensor_descriptor.hpp"
#include "problem/conv_problem.hpp"
#include "solver/conv_solver.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;

// Each problem runs once per instruction set this CPU supports (generic, avx2, avx512), so the
// portable fallbacks of the vector kernels are tested on the same machine as the fast ones.
class ConvSolvers : public ::testing::TestWithParam<std::tuple<std::string, CpuIsa>> {};

TEST_P(ConvSolvers, EveryApplicableSolverMatchesReference) {
  const auto& [line, isa] = GetParam();
  if (static_cast<int>(isa) > static_cast<int>(best_cpu_isa()))
    GTEST_SKIP() << "this CPU lacks " << cpu_isa_name(isa);
  ConvSpec spec;
  ASSERT_FALSE(driver::parse_conv_line(line, spec)) << line;
  const test::BuiltConv b = test::build_conv(spec);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  cfg.cpu_isa = isa;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};

  for (const ConvDirection user_dir :
       {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeights}) {
    if ((spec.forw != 0 && (spec.forw & static_cast<int>(user_dir)) == 0)) continue;
    const ConvProblem p(user_dir, b.x, b.w, b.conv, b.y);
    SCOPED_TRACE(p.key());
    // Tensors in the solvers' (normalised) naming; the direction's output is poisoned per run.
    HostTensor x = test::host_tensor(p.x()), w = test::host_tensor(p.w()),
               y = test::host_tensor(p.y());
    HostTensor* out = p.direction() == ConvDirection::Forward        ? &y
                      : p.direction() == ConvDirection::BackwardData ? &x
                                                                     : &w;
    for (HostTensor* t : {&x, &w, &y})
      if (t != out) test::fill_random(*t, rng);
    const auto expected = test::conv_reference(p, test::conv_params(spec), x, w, y);
    std::set<std::string> ran;
    for (const auto& e : backend->conv_solvers().entries()) {
      const Applicability a = e.solver->applicable(ctx, p);
      if (!a) {
        EXPECT_FALSE(a.reason.empty()) << e.solver->name() << " rejects without a reason";
        continue;
      }
      SCOPED_TRACE(std::string(e.solver->name()));
      std::vector<uint8_t> ws(e.solver->workspace_size(ctx, p));
      out->poison();
      e.solver->make_invoker(ctx,
                             p)(ConvBuffers{x.data(), w.data(), y.data(), ws.data(), ws.size()});
      const double err = ref::relative_rms(expected, ref::to_logical(out->view()));
      EXPECT_LE(err, test::conv_tolerance(p)) << e.solver->name();
      ran.insert(std::string(e.solver->name()));
    }
    // Coverage promises: a naive solver takes every problem of its direction; a GEMM solver
    // every packed NCHW/NCDHW one (1x1 stride-1 unpadded ones go to the 1x1 variant as well);
    // the fp32 fast solvers every packed fp32 one of their direction (2-D for some).
    static const char* kNaive[] = {"ConvDirectNaiveConvFwd", "ConvDirectNaiveConvBwd",
                                   "ConvDirectNaiveConvWrw"};
    static const char* kGemm[] = {"GemmFwdRest", "GemmBwdRest", "GemmWrwUniversal"};
    const int d = p.direction() == ConvDirection::Forward        ? 0
                  : p.direction() == ConvDirection::BackwardData ? 1
                                                                 : 2;
    EXPECT_TRUE(ran.count(kNaive[d]));
    const std::string nchw = spec.spatial_dims == 2 ? "NCHW" : "NCDHW";
    const bool packed =
        spec.in_layout == nchw && spec.fil_layout == nchw && spec.out_layout == nchw;
    if (packed) EXPECT_TRUE(ran.count(kGemm[d]));
    if (packed && spec.type == miopenFloat && d == 0) {
      EXPECT_TRUE(ran.count("ImplicitGemmFwd"));
      EXPECT_TRUE(ran.count("ImplicitGemmChannelFwd"));
      if (spec.spatial_dims == 2) EXPECT_TRUE(ran.count("ImplicitGemmShiftedFwd"));
    }
    if (packed && spec.type == miopenFloat && d == 1) EXPECT_TRUE(ran.count("ImplicitGemmBwd"));
    if (packed && spec.type == miopenFloat && d == 2 && spec.spatial_dims == 2)
      EXPECT_TRUE(ran.count("ImplicitGemmShiftedWrw"));
    if (packed && spec.type == miopenFloat && d == 2) EXPECT_TRUE(ran.count("ImplicitGemmWrw"));
    static const char* kDepthwise[] = {"ConvDepthwiseFwd", "ConvDepthwiseBwd", "ConvDepthwiseWrw"};
    if (spec.spatial_dims == 2 && spec.groups > 1 && spec.groups == spec.in_lens[1] &&
        spec.in_layout == "NCHW" && spec.fil_layout == "NCHW" && spec.out_layout == "NCHW")
      EXPECT_TRUE(ran.count(kDepthwise[d]));
    EXPECT_GE(ran.size(), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Problems, ConvSolvers,
    ::testing::Combine(::testing::ValuesIn(test::load_problem_lines("conv_problems.txt")),
                       ::testing::Values(CpuIsa::Avx512, CpuIsa::Avx2, CpuIsa::Generic)),
    [](const auto& info) {
      return test::test_name_of(std::get<0>(info.param)) + "_" +
             cpu_isa_name(std::get<1>(info.param));
    });

// Non-packed strides: only the naive solver applies, and it reads through the strides.
TEST(ConvSolvers, NaiveForwardHandlesPaddedStrides) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  // x is a 2x3x6x7 window of a 2x5x9x10 allocation; y rows are padded to 8.
  const TensorDescriptor x(miopenFloat, {2, 3, 6, 7}, {450, 90, 10, 1});
  const TensorDescriptor w(miopenFloat, {4, 3, 3, 3});
  ConvolutionDescriptor conv(miopenConvolution, {1, 1}, {1, 1}, {1, 1});
  const TensorDescriptor y(miopenFloat, {2, 4, 6, 7}, {4 * 6 * 8, 6 * 8, 8, 1});
  const ConvProblem p(ConvDirection::Forward, x, w, conv, y);
  HostTensor hx = test::host_tensor(x), hw = test::host_tensor(w), hy = test::host_tensor(y);
  test::fill_random(hx, rng);
  test::fill_random(hw, rng);
  const auto expected =
      ref::conv_forward(hx.view(), hw.view(), {{1, 1}, {1, 1}, {1, 1}, 1}, y.lens());
  Config cfg;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto* gemm = backend->conv_solvers().find("GemmFwdRest");
  ASSERT_NE(gemm, nullptr);
  EXPECT_FALSE(gemm->solver->applicable(ctx, p));
  const auto* naive = backend->conv_solvers().find("ConvDirectNaiveConvFwd");
  ASSERT_NE(naive, nullptr);
  ASSERT_TRUE(naive->solver->applicable(ctx, p));
  hy.poison();
  naive->solver->make_invoker(ctx, p)(ConvBuffers{hx.data(), hw.data(), hy.data(), nullptr, 0});
  EXPECT_LE(ref::relative_rms(expected, ref::to_logical(hy.view())), 1.5e-6);
}

}  // namespace
}  // namespace anydnn
