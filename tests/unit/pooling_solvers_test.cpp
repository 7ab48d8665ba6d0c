// Every CPU pooling solver, alone, on every problem of tests/pooling_test_cases.hpp it declares
// applicable (every type and mode, max with every index type and mode, forward with indices and
// backward), against the double reference, with fresh random inputs and poisoned outputs. Plus
// the problem's validation and canonical key.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "backend/backend.hpp"
#include "pooling/pooling_solver.hpp"
#include "pooling_test_cases.hpp"

namespace anydnn {
namespace {

std::vector<std::string> every_cpu_pooling_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<std::string> out;
  for (const auto& e : backend->solvers<PoolingSolver>().entries())
    out.emplace_back(e.solver->name());
  return out;
}

class PoolingSolverAlone : public ::testing::TestWithParam<std::string> {};

// One test per solver, named after it (--gtest_filter='*PoolFwdDirect*' runs one).
TEST_P(PoolingSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto* entry = backend->solvers<PoolingSolver>().find(GetParam());
  ASSERT_NE(entry, nullptr);
  const PoolingSolver& s = *entry->solver;
  const auto takes = [&](const PoolingProblem& p) { return bool(s.applicable(ctx, p)); };
  const test::PoolRunner run = [&](const PoolingProblem& p, test::PoolHost& h) {
    PoolingBuffers b;
    b.x = h.x.data();
    b.y = h.y.data();
    b.dy = h.dy.data();
    b.dx = h.dx.data();
    b.workspace = h.ws.data();
    s.run(ctx, p, b);
  };
  int ran = 0;
  for (const auto& c : test::pooling_cases())
    for (const auto& v : test::pooling_variants()) {
      test::check_pooling(c, v, rng, takes, run, ran);
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(ran, 0) << GetParam() << " took no problem";
}

INSTANTIATE_TEST_SUITE_P(Solvers, PoolingSolverAlone,
                         ::testing::ValuesIn(every_cpu_pooling_solver()),
                         [](const auto& info) { return info.param; });

TEST(PoolingProblem, KeyIsMIOpensPoolCommand) {
  PoolingDesc d;
  d.lens = {3, 3};
  d.pads = {1, 1};
  d.strides = {2, 2};
  const TensorDescriptor x(miopenFloat, {32, 64, 56, 56});
  const TensorDescriptor y(miopenFloat, pooling_output_lens(d, x));
  EXPECT_EQ(y.lens(), (std::vector<size_t>{32, 64, 28, 28}));
  const PoolingProblem p(PoolDirection::Forward, d, {&x, &y, nullptr, nullptr}, true);
  EXPECT_EQ(p.key(),
            "pool -M 0 --input 32x64x56x56,200704x3136x56x1 -y 3 -x 3 -p 1 -q 1 -v 2 -u 2 -m max "
            "-F 1 -t 1");
  PoolingDesc d3;
  d3.mode = miopenPoolingAverageInclusive;
  d3.lens = {2, 3, 3};
  d3.pads = {0, 1, 1};
  d3.strides = {2, 1, 1};
  d3.index_mode = miopenPoolingWorkspaceIndexImage;
  const TensorDescriptor x3(miopenHalf, {1, 2, 4, 5, 5});
  const TensorDescriptor y3(miopenHalf, pooling_output_lens(d3, x3));
  const PoolingProblem p3(PoolDirection::Backward, d3, {&x3, &y3, &x3, &y3}, false);
  EXPECT_EQ(p3.key(),
            "poolfp16 -M 1 --input 1x2x4x5x5,200x100x25x5x1 -Z 2 -y 3 -x 3 -o 0 -p 1 -q 1 -s 2 "
            "-v 1 -u 1 -m avg_in -F 0 -t 1");
}

TEST(PoolingProblem, RejectsBadInputWithTheRightStatus) {
  PoolingDesc d;
  d.lens = {2, 2};
  d.pads = {0, 0};
  d.strides = {2, 2};
  const TensorDescriptor x(miopenFloat, {1, 2, 8, 8});
  const TensorDescriptor y(miopenFloat, {1, 2, 4, 4});
  const TensorDescriptor y_other_c(miopenFloat, {1, 3, 4, 4});
  const TensorDescriptor y_half(miopenHalf, {1, 2, 4, 4});
  const TensorDescriptor x5(miopenFloat, {1, 2, 2, 8, 8});
  const TensorDescriptor xi(miopenInt32, {1, 2, 8, 8});
  const auto status = [&](const PoolingDesc& pd, const TensorDescriptor& a,
                          const TensorDescriptor& b) {
    try {
      PoolingProblem(PoolDirection::Forward, pd, {&a, &b, nullptr, nullptr}, true);
    } catch (const Error& e) {
      return e.status();
    }
    return miopenStatusSuccess;
  };
  EXPECT_EQ(status(d, x, y), miopenStatusSuccess);
  EXPECT_EQ(status(d, x, y_other_c), miopenStatusBadParm);
  EXPECT_EQ(status(d, x, y_half), miopenStatusBadParm);
  EXPECT_EQ(status(d, x5, y), miopenStatusBadParm);
  EXPECT_EQ(status(d, xi, xi), miopenStatusNotImplemented);
  EXPECT_EQ(status(PoolingDesc{}, x, y), miopenStatusBadParm);
  // uint8 image indices cannot name 16 x 16 = 256 positions (255 is reserved).
  PoolingDesc wide = d;
  wide.index_mode = miopenPoolingWorkspaceIndexImage;
  const TensorDescriptor big(miopenFloat, {1, 1, 16, 16});
  const TensorDescriptor big_y(miopenFloat, {1, 1, 8, 8});
  EXPECT_EQ(status(wide, big, big_y), miopenStatusBadParm);
  wide.index_type = miopenIndexUint16;
  EXPECT_EQ(status(wide, big, big_y), miopenStatusSuccess);
}

}  // namespace
}  // namespace anydnn
