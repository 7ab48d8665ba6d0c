// Every CPU convolution solver, alone (no Find, no selection), on every problem of the shared
// lists, against the double-accumulating reference with MIOpen's rms tolerances, one test per
// solver. Outputs are poisoned with NaN before each run, so an element a solver forgets to write
// fails the check.
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv_reference.hpp"
#include "conv_solver_promises.hpp"
#include "conv_test_util.hpp"
#include "core/conv_descriptor.hpp"
#include "core/cpu_isa.hpp"
#include "core/tensor_descriptor.hpp"
#include "solver_isa.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;

// One test per solver and instruction set (generic, avx2, avx512, where this CPU has it), named
// after the solver (--gtest_filter='*WinogradF4x3Fwd*' runs one), so the portable fallbacks of
// the vector kernels are tested on the same machine as the fast ones.
using test::SolverIsa;  // solver_isa.hpp

std::vector<SolverIsa> every_cpu_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<SolverIsa> out;
  for (const auto& e : backend->solvers<ConvSolver>().entries())
    for (const CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2, CpuIsa::Generic})
      out.push_back({std::string(e.solver->name()), isa});
  return out;
}

class ConvSolverAlone : public ::testing::TestWithParam<SolverIsa> {};

// The solver alone (no Find, no selection) on every problem and direction of the shared list
// that it accepts, against the reference with MIOpen's tolerance; its output poisoned first. It
// must accept every problem its promise covers (conv_solver_promises.hpp) and at least one.
TEST_P(ConvSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
  const SolverIsa& c = GetParam();
  if (static_cast<int>(c.isa) > static_cast<int>(best_cpu_isa()))
    GTEST_SKIP() << "this CPU lacks " << cpu_isa_name(c.isa);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  cfg.cpu_isa = c.isa;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto* entry = backend->solvers<ConvSolver>().find(c.solver);
  ASSERT_NE(entry, nullptr);
  const ConvSolver& solver = *entry->solver;
  int ran = 0, promised = 0;
  bool has_promise = false;
  for (const std::string& line : test::load_problem_lines("conv_problems.txt")) {
    ConvSpec spec;
    ASSERT_FALSE(driver::parse_conv_line(line, spec)) << line;
    const test::BuiltConv b = test::build_conv(spec);
    for (const ConvDirection user_dir :
         {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeights}) {
      if ((spec.forw != 0 && (spec.forw & static_cast<int>(user_dir)) == 0)) continue;
      const ConvProblem p(user_dir, b.x, b.w, b.conv, b.y);
      SCOPED_TRACE(p.key());
      const std::optional<bool> meant = test::solver_meant_for(solver.name(), p);
      has_promise = has_promise || meant.has_value();
      if (meant.value_or(false)) ++promised;
      const Applicability a = solver.applicable(ctx, p);
      if (!a) {
        EXPECT_FALSE(a.reason.empty()) << "rejects without a reason";
        EXPECT_FALSE(meant.value_or(false)) << "meant for this problem, rejects it: " << a.reason;
        continue;
      }
      // Tensors in the solver's (normalised) naming; the direction's output is poisoned.
      HostTensor x = test::host_tensor(p.x()), w = test::host_tensor(p.w()),
                 y = test::host_tensor(p.y());
      HostTensor* out = p.direction() == ConvDirection::Forward        ? &y
                        : p.direction() == ConvDirection::BackwardData ? &x
                                                                       : &w;
      for (HostTensor* t : {&x, &w, &y})
        if (t != out) test::fill_random(*t, rng);
      const auto expected = test::conv_reference(p, test::conv_params(spec), x, w, y);
      std::vector<uint8_t> ws(solver.workspace_size(ctx, p));
      out->poison();
      solver.make_invoker(ctx, p)(ConvBuffers{x.data(), w.data(), y.data(), ws.data(), ws.size()});
      const double err = ref::relative_rms(expected, ref::to_logical(out->view()));
      EXPECT_LE(err, test::conv_tolerance(p));
      ++ran;
    }
  }
  EXPECT_GT(ran, 0) << c.solver << " takes no problem of the shared list";
  if (has_promise)
    EXPECT_GT(promised, 0) << "no problem of the list is one " << c.solver << " is meant for";
}

INSTANTIATE_TEST_SUITE_P(Solvers, ConvSolverAlone, ::testing::ValuesIn(every_cpu_solver()),
                         [](const auto& info) {
                           return info.param.solver + "_" + cpu_isa_name(info.param.isa);
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
  const auto* gemm = backend->solvers<ConvSolver>().find("GemmFwdRest");
  ASSERT_NE(gemm, nullptr);
  EXPECT_FALSE(gemm->solver->applicable(ctx, p));
  const auto* naive = backend->solvers<ConvSolver>().find("ConvDirectNaiveConvFwd");
  ASSERT_NE(naive, nullptr);
  ASSERT_TRUE(naive->solver->applicable(ctx, p));
  hy.poison();
  naive->solver->make_invoker(ctx, p)(ConvBuffers{hx.data(), hw.data(), hy.data(), nullptr, 0});
  EXPECT_LE(ref::relative_rms(expected, ref::to_logical(hy.view())), 1.5e-6);
}

}  // namespace
}  // namespace anydnn
