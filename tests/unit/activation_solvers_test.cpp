// Every CPU activation solver, alone, on every problem of tests/problems/activation_problems.txt
// it declares applicable (every mode, forward and backward, plain and blended), against the
// double reference; outputs are poisoned first (tests/activation_test_cases.hpp). Plus the
// problem's validation and geometry.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "activation/activation_solver.hpp"
#include "activation_test_cases.hpp"
#include "backend/backend.hpp"
#include "core/elementwise_geometry.hpp"

namespace anydnn {
namespace {

std::vector<std::string> every_cpu_activation_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<std::string> out;
  for (const auto& e : backend->solvers<ActivationSolver>().entries())
    out.emplace_back(e.solver->name());
  return out;
}

class ActivationSolverAlone : public ::testing::TestWithParam<std::string> {};

// One test per solver, named after it (--gtest_filter='*ActivStrided*' runs one).
TEST_P(ActivationSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto* entry = backend->solvers<ActivationSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const ActivationSolver& s = *entry->solver;
  const test::ActivRunner run = [&](const ActivationProblem& p, test::ActivHostBuffers& b,
                                    float alpha, float beta) {
    ActivationBuffers ab;
    ab.x = b.x.data();
    ab.alpha = alpha;
    ab.beta = beta;
    if (p.forward()) {
      ab.y = b.out.data();
    } else {
      ab.y = b.y.data();
      ab.dy = b.dy.data();
      ab.dx = b.out.data();
    }
    s.run(ctx, p, ab);
  };
  int ran = 0, packed = 0;
  for (const test::ActivCase& c : test::load_activation_cases())
    for (const ActivDirection dir : {ActivDirection::Forward, ActivDirection::Backward}) {
      const ActivationProblem p = test::activation_problem(c, dir);
      const Applicability a = s.applicable(ctx, p);
      // Promises: the fallback takes everything, ActivPacked every problem packed in one order.
      if (s.fallback_only() || p.geometry().contiguous())
        EXPECT_TRUE(a) << c.line << ": " << solver << " rejects it: " << a.reason;
      if (!a) {
        EXPECT_FALSE(a.reason.empty());
        continue;
      }
      packed += p.geometry().contiguous() ? 1 : 0;
      for (const auto& bl : test::activation_blends()) {
        test::check_activation(c, dir, bl.alpha, bl.beta, rng, run);
        ++ran;
      }
    }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
  EXPECT_GT(packed, 0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, ActivationSolverAlone,
                         ::testing::ValuesIn(every_cpu_activation_solver()),
                         [](const auto& info) { return info.param; });

// The geometry: packed tensors of one layout merge to one dimension (ActivPacked), others keep
// what the strided walk needs.
TEST(ActivationGeometry, PackedLayoutsMergeToOneDimension) {
  const TensorDescriptor nchw = TensorDescriptor::with_layout(miopenFloat, "NCHW", {2, 3, 4, 5});
  const TensorDescriptor nhwc = TensorDescriptor::with_layout(miopenFloat, "NHWC", {2, 3, 4, 5});
  EXPECT_TRUE(make_activ_geometry({&nchw, &nchw}, 1).contiguous());
  EXPECT_TRUE(make_activ_geometry({&nhwc, &nhwc}, 1).contiguous());
  const ActivGeometry mixed = make_activ_geometry({&nhwc, &nchw}, 1);
  EXPECT_FALSE(mixed.contiguous());
  EXPECT_EQ(mixed.count, 120);
  // Padded rows: two dimensions, unit inner strides.
  const TensorDescriptor rows(miopenFloat, {6, 13}, {16, 1});
  const TensorDescriptor packed(miopenFloat, {6, 13});
  const ActivGeometry g = make_activ_geometry({&rows, &packed}, 1);
  EXPECT_EQ(g.rank, 2);
  EXPECT_TRUE(g.unit_inner_stride());
  // Different lengths of equal count pair up by logical index: 2x6 and 12 -> 12.
  const TensorDescriptor a(miopenFloat, {2, 6}), b(miopenFloat, {12});
  EXPECT_TRUE(make_activ_geometry({&a, &b}, 1).contiguous());
  // 2x3 and 3x2 strided have no common shape.
  const TensorDescriptor c(miopenFloat, {2, 3}, {4, 1}), d(miopenFloat, {3, 2}, {3, 1});
  EXPECT_THROW(make_activ_geometry({&c, &d}, 1), Error);
}

TEST(ActivationProblem, ValidatesDescriptorsAndPrintsMiopensLogCmd) {
  const TensorDescriptor x(miopenFloat, {2, 3, 4, 5}), y = x;
  const ActivMode relu{miopenActivationRELU, 1.0, 0.5, 2.0};
  const ActivationProblem p(ActivDirection::Forward, relu, {&x, &y});
  EXPECT_EQ(p.key(), "activ -n 2 -c 3 -H 4 -W 5 -m 3 --forw 1 -A 1 -B 0.5 -G 2");
  const TensorDescriptor h(miopenHalf, {7});
  const ActivationProblem q(ActivDirection::Backward, relu, {&h, &h, &h, &h});
  EXPECT_EQ(q.key(), "activfp16 -n 1 -c 1 -H 1 -W 7 -m 3 --forw 2 -A 1 -B 0.5 -G 2");
  const TensorDescriptor small(miopenFloat, {2, 3, 4, 4});
  const TensorDescriptor half(miopenHalf, {2, 3, 4, 5});
  const TensorDescriptor ints(miopenInt32, {2, 3, 4, 5});
  const TensorDescriptor overlap(miopenFloat, {2, 3, 4, 5}, {1, 1, 1, 1});
  auto status = [&](const ActivDescriptors& d, ActivDirection dir = ActivDirection::Forward,
                    ActivMode m = {miopenActivationRELU, 1, 1, 1}) {
    try {
      ActivationProblem(dir, m, d);
    } catch (const Error& e) {
      return e.status();
    }
    return miopenStatusSuccess;
  };
  EXPECT_EQ(status({&x, &small}), miopenStatusBadParm);
  EXPECT_EQ(status({&x, &half}), miopenStatusBadParm);
  EXPECT_EQ(status({&ints, &ints}), miopenStatusNotImplemented);
  EXPECT_EQ(status({&x, &overlap}), miopenStatusBadParm);
  EXPECT_EQ(status({&x, &y, &x, nullptr}, ActivDirection::Backward), miopenStatusBadParm);
  EXPECT_EQ(
      status({&x, &y}, ActivDirection::Forward, {static_cast<miopenActivationMode_t>(10), 1, 1, 1}),
      miopenStatusBadParm);
}

}  // namespace
}  // namespace anydnn
