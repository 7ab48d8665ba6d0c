// Every CPU convolution solver, alone (no Find, no selection), on every problem of the shared
// lists, against the double-accumulating reference with MIOpen's rms tolerances. Outputs are
// poisoned with NaN before each run, so an element a solver forgets to write fails the check.
#include <gtest/gtest.h>

#include <set>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv_reference.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "problem/conv_problem.hpp"
#include "solver/conv_registry.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;

std::vector<size_t> to_sizes(const std::vector<int>& v) {
  return {v.begin(), v.end()};
}

HostTensor host_tensor(const TensorDescriptor& d) {
  HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

struct Built {
  TensorDescriptor x, w, y;
  ConvolutionDescriptor conv;
};

Built build(const ConvSpec& s) {
  Built b;
  b.x = TensorDescriptor::with_layout(s.type, s.in_layout, to_sizes(s.in_lens));
  b.w = TensorDescriptor::with_layout(s.type, s.fil_layout, to_sizes(s.wei_lens));
  b.conv = ConvolutionDescriptor(s.transpose ? miopenTranspose : miopenConvolution, s.pads,
                                 s.strides, s.dilations);
  b.conv.set_group_count(s.groups);
  if (s.transpose) b.conv.set_trans_output_pads(s.trans_output_pads);
  b.y = TensorDescriptor::with_layout(s.type, s.out_layout, b.conv.forward_output_lens(b.x, b.w));
  return b;
}

class ConvFwdSolvers : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvFwdSolvers, EveryApplicableSolverMatchesReference) {
  ConvSpec spec;
  ASSERT_FALSE(driver::parse_conv_line(GetParam(), spec)) << GetParam();
  const Built b = build(spec);
  const ConvProblem p(ConvDirection::Forward, b.x, b.w, b.conv, b.y);
  ASSERT_EQ(p.direction(), ConvDirection::Forward);

  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  HostTensor x = host_tensor(b.x), w = host_tensor(b.w), y = host_tensor(b.y);
  test::fill_random(x, rng);
  test::fill_random(w, rng);
  const ref::ConvParams params{spec.pads, spec.strides, spec.dilations, spec.groups};
  const auto expected = ref::conv_forward(x.view(), w.view(), params, b.y.lens());
  const double tol = ref::conv_default_tolerance(spec.type);

  Config cfg;
  cfg.num_threads = 2;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  std::set<std::string> ran;
  for (const auto& e : backend->conv_solvers().entries()) {
    const Applicability a = e.solver->applicable(ctx, p);
    if (!a) {
      EXPECT_FALSE(a.reason.empty()) << e.solver->name() << " rejects without a reason";
      continue;
    }
    SCOPED_TRACE(std::string(e.solver->name()));
    std::vector<uint8_t> ws(e.solver->workspace_size(ctx, p));
    y.poison();
    const ConvInvoker inv = e.solver->make_invoker(ctx, p);
    inv(ConvBuffers{x.data(), w.data(), y.data(), ws.data(), ws.size()});
    const double err = ref::rms_range(expected, ref::to_logical(y.view()));
    EXPECT_LE(err, tol) << e.solver->name() << " on " << p.key();
    ran.insert(std::string(e.solver->name()));
  }
  // The naive solver takes every forward problem; GEMM every packed NCHW/NCDHW one.
  EXPECT_TRUE(ran.count("ConvDirectNaiveConvFwd")) << p.key();
  const std::string nchw = spec.spatial_dims == 2 ? "NCHW" : "NCDHW";
  if (spec.in_layout == nchw && spec.fil_layout == nchw && spec.out_layout == nchw)
    EXPECT_TRUE(ran.count("GemmFwdRest")) << p.key();
}

INSTANTIATE_TEST_SUITE_P(Problems, ConvFwdSolvers,
                         ::testing::ValuesIn(test::load_problem_lines("conv_fwd.txt")),
                         [](const auto& info) { return test::test_name_of(info.param); });

// Non-packed strides: only the naive solver applies, and it reads through the strides.
TEST(ConvFwdSolvers, NaiveHandlesPaddedStrides) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  // x is a 2x3x6x7 window of a 2x5x9x10 allocation; y rows are padded to 8.
  const TensorDescriptor x(miopenFloat, {2, 3, 6, 7}, {450, 90, 10, 1});
  const TensorDescriptor w(miopenFloat, {4, 3, 3, 3});
  ConvolutionDescriptor conv(miopenConvolution, {1, 1}, {1, 1}, {1, 1});
  const TensorDescriptor y(miopenFloat, {2, 4, 6, 7}, {4 * 6 * 8, 6 * 8, 8, 1});
  const ConvProblem p(ConvDirection::Forward, x, w, conv, y);
  HostTensor hx = host_tensor(x), hw = host_tensor(w), hy = host_tensor(y);
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
  EXPECT_LE(ref::rms_range(expected, ref::to_logical(hy.view())), 1.5e-6);
}

}  // namespace
}  // namespace anydnn
