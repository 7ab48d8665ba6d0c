// Every CPU LRN solver, alone, on every problem of tests/problems/lrn_problems.txt it declares
// applicable (forward keeping the scale, forward without, backward), against the double
// reference; outputs are poisoned first (tests/lrn_test_cases.hpp). Plus the problem's
// validation and its LogCmdLRN key.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "backend/backend.hpp"
#include "lrn/lrn_solver.hpp"
#include "lrn_test_cases.hpp"

namespace anydnn {
namespace {

std::vector<std::string> every_cpu_lrn_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<std::string> out;
  for (const auto& e : backend->solvers<LrnSolver>().entries())
    out.emplace_back(e.solver->name());
  return out;
}

class LrnSolverAlone : public ::testing::TestWithParam<std::string> {};

// One test per solver, named after it (--gtest_filter='*LrnCrossChannel*' runs one).
TEST_P(LrnSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto* entry = backend->solvers<LrnSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const LrnSolver& s = *entry->solver;
  const test::LrnRunner run = [&](const LrnProblem& p, test::LrnHostBuffers& b) {
    LrnBuffers lb;
    lb.x = b.x.data();
    lb.y = b.y.data();
    lb.dy = b.dy.data();
    lb.dx = b.dx.data();
    lb.workspace = b.ws.data();
    s.run(ctx, p, lb);
  };
  int ran = 0;
  for (const test::LrnCase& c : test::load_lrn_cases())
    for (const test::LrnRun& r : test::lrn_runs()) {
      const LrnProblem p = test::lrn_problem(c, r.dir, r.save_scale);
      const Applicability a = s.applicable(ctx, p);
      // Promise: each solver takes every problem of its mode, whatever the strides.
      const bool mine = (solver == "LrnCrossChannel") == p.cross_channel();
      EXPECT_EQ(static_cast<bool>(a), mine) << c.line << ": " << a.reason;
      if (!a) {
        EXPECT_FALSE(a.reason.empty());
        continue;
      }
      test::check_lrn(c, r.dir, r.save_scale, rng, run);
      ++ran;
    }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, LrnSolverAlone, ::testing::ValuesIn(every_cpu_lrn_solver()),
                         [](const auto& info) { return info.param; });

miopenStatus_t problem_status(const LrnParams& prm, const TensorDescriptor* x,
                              const TensorDescriptor* y, bool save_scale = false) {
  try {
    LrnDescriptors d;
    d.x = x;
    d.y = y;
    LrnProblem(LrnDirection::Forward, prm, d, save_scale);
  } catch (const Error& e) {
    return e.status();
  }
  return miopenStatusSuccess;
}

TEST(LrnProblem, ValidatesDescriptorsAndPrintsMiopensLogCmd) {
  const TensorDescriptor x(miopenFloat, {100, 3, 32, 32}), y = x;
  LrnParams prm;
  prm.mode = miopenLRNCrossChannel;
  prm.n = 5;
  prm.alpha = 0.001;
  prm.beta = 0.75;
  prm.k = 1.0;
  LrnDescriptors fd;
  fd.x = &x;
  fd.y = &y;
  const LrnProblem p(LrnDirection::Forward, prm, fd, true);
  EXPECT_EQ(p.key(), "lrn -A 0.001 -B 0.75 -F 1 -H 32 -K 1 -N 5 -W 32 -c 3 -m 1 -n 100");
  EXPECT_TRUE(p.packed());
  EXPECT_TRUE(p.uses_workspace());
  EXPECT_EQ(p.pre_pad(), 2);
  EXPECT_EQ(p.pad(), 2);
  EXPECT_DOUBLE_EQ(p.alpha_over_area(), 0.001 / 5);
  EXPECT_EQ(LrnProblem::workspace_size(y), 100u * 3 * 32 * 32 * sizeof(float));

  const TensorDescriptor h(miopenHalf, {2, 6, 5, 7});
  LrnParams within = prm;
  within.mode = miopenLRNWithinChannel;
  within.n = 4;
  within.alpha = 1.5;
  within.k = 2.0;
  LrnDescriptors bd;
  bd.x = bd.y = bd.dy = bd.dx = &h;
  const LrnProblem q(LrnDirection::Backward, within, bd);
  EXPECT_EQ(q.key(), "lrnfp16 -A 1.5 -B 0.75 -F 2 -H 5 -K 2 -N 4 -W 7 -c 6 -m 0 -n 2");
  EXPECT_EQ(q.pre_pad(), 1);
  EXPECT_EQ(q.pad(), 2);
  EXPECT_DOUBLE_EQ(q.alpha_over_area(), 1.5 / 16);
  EXPECT_DOUBLE_EQ(q.backward_ratio(), 2 * 1.5 * 0.75 / 16);
  // MIOpen's size is in floats whatever the type.
  EXPECT_EQ(LrnProblem::workspace_size(h), 2u * 6 * 5 * 7 * sizeof(float));

  const TensorDescriptor small(miopenFloat, {100, 3, 32, 31}), half(miopenHalf, {100, 3, 32, 32}),
      bf(miopenBFloat16, {2, 3, 4, 5}), three(miopenFloat, {2, 3, 4}),
      overlap(miopenFloat, {2, 3, 4, 5}, {1, 1, 1, 1}),
      // n-stride smaller than the rest of the tensor: y reaches past MIOpen's workspace size.
      n_inner(miopenFloat, {2, 3, 4, 5}, {1, 2, 6, 24});
  EXPECT_EQ(problem_status(prm, &x, &y), miopenStatusSuccess);
  EXPECT_EQ(problem_status(prm, &x, &small), miopenStatusBadParm);
  EXPECT_EQ(problem_status(prm, &x, &half), miopenStatusBadParm);
  EXPECT_EQ(problem_status(prm, &bf, &bf), miopenStatusNotImplemented);
  EXPECT_EQ(problem_status(prm, &three, &three), miopenStatusBadParm);
  EXPECT_EQ(problem_status(prm, &x, &overlap), miopenStatusBadParm);
  EXPECT_EQ(problem_status(prm, &x, nullptr), miopenStatusBadParm);
  EXPECT_EQ(problem_status(prm, &n_inner, &n_inner, false), miopenStatusSuccess);
  EXPECT_EQ(problem_status(prm, &n_inner, &n_inner, true), miopenStatusBadParm);
  LrnParams bad = prm;
  bad.n = 0;
  EXPECT_EQ(problem_status(bad, &x, &y), miopenStatusBadParm);
  bad = prm;
  bad.n = 0x80000001u;
  EXPECT_EQ(problem_status(bad, &x, &y), miopenStatusBadParm);
  bad = prm;
  bad.k = 0.0;
  EXPECT_EQ(problem_status(bad, &x, &y), miopenStatusBadParm);
  bad = prm;
  bad.mode = 2;
  EXPECT_EQ(problem_status(bad, &x, &y), miopenStatusBadParm);
}

}  // namespace
}  // namespace anydnn
