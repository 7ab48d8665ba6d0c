// Every CPU softmax solver, alone, on every problem of tests/problems/softmax_problems.txt it
// declares applicable (every algorithm and mode, forward and backward, plain and blended),
// against the double reference; outputs are poisoned first (tests/softmax_test_cases.hpp).
// Plus the problem's validation and its LogCmdSoftmax key.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "backend/backend.hpp"
#include "softmax/softmax_solver.hpp"
#include "softmax_test_cases.hpp"

namespace anydnn {
namespace {

std::vector<std::string> every_cpu_softmax_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<std::string> out;
  for (const auto& e : backend->solvers<SoftmaxSolver>().entries())
    out.emplace_back(e.solver->name());
  return out;
}

class SoftmaxSolverAlone : public ::testing::TestWithParam<std::string> {};

// One test per solver, named after it (--gtest_filter='*SoftmaxStrided*' runs one).
TEST_P(SoftmaxSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto* entry = backend->solvers<SoftmaxSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const SoftmaxSolver& s = *entry->solver;
  const test::SoftmaxRunner run = [&](const SoftmaxProblem& p, test::SoftmaxHostBuffers& b) {
    SoftmaxBuffers sb;
    if (p.forward()) {
      sb.x = b.in.data();
      sb.y = b.out.data();
    } else {
      sb.y = b.in.data();
      sb.dy = b.dy.data();
      sb.dx = b.out.data();
    }
    s.run(ctx, p, sb);
  };
  int ran = 0;
  for (const test::SoftmaxCase& c : test::load_softmax_cases())
    for (const SoftmaxDirection dir : {SoftmaxDirection::Forward, SoftmaxDirection::Backward})
      for (const auto& bl : test::softmax_blends()) {
        const SoftmaxProblem p = test::softmax_problem(c, dir, bl.alpha, bl.beta);
        const Applicability a = s.applicable(ctx, p);
        // Promises: the fallback takes everything, SoftmaxPacked every packed NCHW problem.
        if (s.fallback_only() || p.packed())
          EXPECT_TRUE(a) << c.line << ": " << solver << " rejects it: " << a.reason;
        if (!a) {
          EXPECT_FALSE(a.reason.empty());
          continue;
        }
        test::check_softmax(c, dir, bl.alpha, bl.beta, rng, run);
        ++ran;
      }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, SoftmaxSolverAlone,
                         ::testing::ValuesIn(every_cpu_softmax_solver()),
                         [](const auto& info) { return info.param; });

TEST(SoftmaxProblem, ValidatesDescriptorsAndPrintsMiopensLogCmd) {
  const TensorDescriptor x(miopenFloat, {2, 3, 4, 5}), y = x;
  SoftmaxDescriptors fd;
  fd.x = &x;
  fd.y = &y;
  const SoftmaxProblem p(SoftmaxDirection::Forward, MIOPEN_SOFTMAX_LOG,
                         MIOPEN_SOFTMAX_MODE_INSTANCE, fd, 1.0f, 0.5f);
  EXPECT_EQ(p.key(), "softmax -n 2 -c 3 -H 4 -W 5 -F 1 -a 2 -m 0 -A 1.000000 -B 0.500000");
  EXPECT_EQ(p.vector(), 60);
  EXPECT_EQ(p.groups(), 2);
  EXPECT_TRUE(p.packed());
  const TensorDescriptor h(miopenHalf, {1, 10, 1, 1});
  SoftmaxDescriptors bd;
  bd.y = bd.dy = bd.dx = &h;
  const SoftmaxProblem q(SoftmaxDirection::Backward, MIOPEN_SOFTMAX_ACCURATE,
                         MIOPEN_SOFTMAX_MODE_CHANNEL, bd);
  EXPECT_EQ(q.key(), "softmaxfp16 -n 1 -c 10 -H 1 -W 1 -F 2 -a 1 -m 1 -A 1.000000 -B 0.000000");
  EXPECT_EQ(q.groups(), 1);
  EXPECT_EQ(q.vector(), 10);
  const TensorDescriptor small(miopenFloat, {2, 3, 4, 4}), half(miopenHalf, {2, 3, 4, 5}),
      ints(miopenInt32, {2, 3, 4, 5}), three(miopenFloat, {2, 3, 4}),
      overlap(miopenFloat, {2, 3, 4, 5}, {1, 1, 1, 1});
  auto status = [&](const TensorDescriptor* a, const TensorDescriptor* b,
                    int algo = MIOPEN_SOFTMAX_ACCURATE, int mode = MIOPEN_SOFTMAX_MODE_CHANNEL) {
    try {
      SoftmaxDescriptors d;
      d.x = a;
      d.y = b;
      SoftmaxProblem(SoftmaxDirection::Forward, static_cast<miopenSoftmaxAlgorithm_t>(algo),
                     static_cast<miopenSoftmaxMode_t>(mode), d);
    } catch (const Error& e) {
      return e.status();
    }
    return miopenStatusSuccess;
  };
  EXPECT_EQ(status(&x, &y), miopenStatusSuccess);
  EXPECT_EQ(status(&x, &small), miopenStatusBadParm);
  EXPECT_EQ(status(&x, &half), miopenStatusBadParm);
  EXPECT_EQ(status(&ints, &ints), miopenStatusNotImplemented);
  EXPECT_EQ(status(&three, &three), miopenStatusBadParm);
  EXPECT_EQ(status(&x, &overlap), miopenStatusBadParm);
  EXPECT_EQ(status(&x, nullptr), miopenStatusBadParm);
  EXPECT_EQ(status(&x, &y, 3), miopenStatusBadParm);
  EXPECT_EQ(status(&x, &y, 1, 2), miopenStatusBadParm);
}

}  // namespace
}  // namespace anydnn
