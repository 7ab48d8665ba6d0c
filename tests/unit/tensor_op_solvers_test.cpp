// Every CPU tensor-op solver, alone, on every problem of tests/problems/tensorop_problems.txt it
// declares applicable (one test each, named <solver>/<problem>), against the double reference:
// inputs drawn fresh per run, the output poisoned with NaN first (or drawn, when beta reads it),
// bytes between the output's elements checked untouched. Also: the plan's broadcast and merge
// rules, the problem's validation (status and message), and that every line has a solver.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "solver/registry.hpp"
#include "tensor_op_test_util.hpp"
#include "tensor_ops/tensor_op_ops.hpp"
#include "tensor_ops/tensor_op_plan.hpp"

namespace anydnn {
namespace {

using test::TensorOpCase;

Backend& cpu_backend() {
  static const Config cfg = [] {
    Config c;
    c.num_threads = 2;
    return c;
  }();
  static std::unique_ptr<Backend> b = make_cpu_backend(cfg);
  return *b;
}

const Config& cpu_config() {
  static const Config cfg = [] {
    Config c;
    c.num_threads = 2;
    return c;
  }();
  return cfg;
}

std::vector<TensorOpCase> cases() {
  std::vector<TensorOpCase> out;
  for (const auto& l : test::load_problem_lines("tensorop_problems.txt"))
    out.push_back(test::parse_tensor_op_line(l));
  return out;
}

struct Param {
  std::string solver;
  size_t index;
  std::string name;
};

// (solver, problem) pairs where the solver applies: built from the registry and the list, so a
// new solver or line is picked up with no edit here.
std::vector<Param> params() {
  std::vector<Param> out;
  const auto all = cases();
  const ExecutionContext ctx{cpu_config(), cpu_backend()};
  for (const auto& e : cpu_backend().solvers<TensorOpSolver>().entries())
    for (size_t i = 0; i < all.size(); ++i)
      if (e.solver->applicable(ctx, test::make_problem(all[i])))
        out.push_back({std::string(e.solver->name()), i, all[i].name});
  return out;
}

// The front-end's choice without a handle: the first applicable non-fallback, else a fallback.
const TensorOpSolverEntry& first_applicable(const TensorOpProblem& p) {
  const ExecutionContext ctx{cpu_config(), cpu_backend()};
  const TensorOpSolverEntry* fallback = nullptr;
  for (const auto& e : cpu_backend().solvers<TensorOpSolver>().entries()) {
    if (!e.solver->applicable(ctx, p)) continue;
    if (!e.solver->fallback_only()) return e;
    if (fallback == nullptr) fallback = &e;
  }
  if (fallback == nullptr) throw std::runtime_error("no solver for " + p.key());
  return *fallback;
}

class TensorOpSolverTest : public ::testing::TestWithParam<Param> {};

TEST_P(TensorOpSolverTest, MatchesReference) {
  const Param& prm = GetParam();
  const TensorOpCase k = cases()[prm.index];
  SCOPED_TRACE(k.line);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  const TensorOpProblem p = test::make_problem(k);
  const ExecutionContext ctx{cpu_config(), cpu_backend()};
  const auto* e = cpu_backend().solvers<TensorOpSolver>().find(prm.solver);
  ASSERT_NE(e, nullptr);
  test::TensorOpData d = test::draw(k, rng);
  const auto want = test::expected(k, d);
  driver::HostTensor out = d.c;
  if (p.zero_output_first()) {  // the front-end's SetTensor(0); here by the first solver
    const uint64_t zero = 0;
    const auto clear = TensorOpProblem::set_tensor(p.c(), &zero);
    const auto& z = first_applicable(clear);
    z.solver->run(ctx, clear.plan(), {nullptr, nullptr, out.data()});
  }
  const driver::HostTensor before = out;
  e->solver->run(ctx, p.plan(), {d.a.data(), d.b.data(), out.data()});
  test::expect_output(k, want, before, out);
}

INSTANTIATE_TEST_SUITE_P(List, TensorOpSolverTest, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return i.param.solver + "_" + std::to_string(i.param.index) + "_" +
                                  i.param.name;
                         });

TEST(TensorOpList, EveryLineHasASolverAndTheExpectedOne) {
  const ExecutionContext ctx{cpu_config(), cpu_backend()};
  for (const auto& k : cases()) {
    SCOPED_TRACE(k.line);
    const TensorOpProblem p = test::make_problem(k);
    const auto& e = first_applicable(p);
    const TensorOpPlan& plan = p.plan();
    // Packed tensors of one layout are one run; unit-stride rows go to TensorOpRows.
    if (plan.ndim == 1 && plan.inner_contiguous())
      EXPECT_EQ(e.solver->name(), "TensorOpPacked");
    else if (plan.inner_contiguous())
      EXPECT_EQ(e.solver->name(), "TensorOpRows");
    else
      EXPECT_EQ(e.solver->name(), "TensorOpStrided");
  }
}

// The plan's rules, on the shapes its header names.
TEST(TensorOpPlan, MergesPackedTensorsIntoOneRun) {
  const size_t lens[] = {2, 3, 5, 7}, s[] = {105, 35, 7, 1};
  const PlanOperand a{lens, s};
  const TensorOpPlan p = plan_tensor_op(ElementwiseOp::Add, miopenFloat, 4, lens, s, &a, &a);
  ASSERT_EQ(p.ndim, 1);
  EXPECT_EQ(p.lens[0], 210u);
  EXPECT_TRUE(p.inner_contiguous());
}

TEST(TensorOpPlan, PerChannelBiasIsNByCByHw) {
  const size_t lens[] = {2, 3, 5, 7}, s[] = {105, 35, 7, 1};
  const size_t blens[] = {1, 3, 1, 1}, bs[] = {3, 1, 1, 1};
  const PlanOperand a{lens, s}, b{blens, bs};
  const TensorOpPlan p = plan_tensor_op(ElementwiseOp::Add, miopenFloat, 4, lens, s, &a, &b);
  ASSERT_EQ(p.ndim, 3);
  EXPECT_EQ(p.lens[0], 2u);
  EXPECT_EQ(p.lens[1], 3u);
  EXPECT_EQ(p.lens[2], 35u);
  EXPECT_EQ(p.b[0], 0u);
  EXPECT_EQ(p.b[1], 1u);
  EXPECT_EQ(p.b[2], 0u);
  EXPECT_TRUE(p.inner_contiguous());
}

TEST(TensorOpPlan, NchwToNhwcFollowsTheOutput) {
  const size_t lens[] = {2, 3, 5, 7}, nchw[] = {105, 35, 7, 1}, nhwc[] = {105, 1, 21, 3};
  const PlanOperand x{lens, nchw};
  const TensorOpPlan p =
      plan_tensor_op(ElementwiseOp::Copy, miopenFloat, 4, lens, nhwc, &x, nullptr);
  ASSERT_EQ(p.ndim, 3);  // N, H*W, C
  EXPECT_EQ(p.lens[1], 35u);
  EXPECT_EQ(p.lens[2], 3u);
  EXPECT_EQ(p.c[2], 1u);
  EXPECT_EQ(p.a[2], 35u);
  EXPECT_FALSE(p.inner_contiguous());
}

miopenStatus_t status_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.message();
    return e.status();
  }
  return miopenStatusSuccess;
}

// MIOpen's checks and statuses (src/ocl/tensorocl.cpp): UnknownError where it throws a bare
// message, BadParm for null pointers and ScaleTensor's types.
TEST(TensorOpProblem, RejectsWhatMiopenRejects) {
  const float one = 1.0f, zero = 0.0f;
  const TensorDescriptor c(miopenFloat, {2, 3, 4, 5});
  const auto op = [&](const TensorDescriptor& a, const TensorDescriptor& b) {
    return status_of(
        [&] { TensorOpProblem::op_tensor(miopenTensorOpAdd, a, b, c, &one, &one, &zero); });
  };
  EXPECT_EQ(op(c, c), miopenStatusSuccess);
  EXPECT_EQ(op(TensorDescriptor(miopenFloat, {2, 3, 4, 6}), c), miopenStatusUnknownError);
  EXPECT_EQ(op(c, TensorDescriptor(miopenHalf, {2, 3, 4, 5})), miopenStatusUnknownError);
  EXPECT_EQ(op(c, TensorDescriptor(miopenFloat, {3, 4, 5})), miopenStatusUnknownError);
  EXPECT_EQ(op(c, TensorDescriptor(miopenFloat, {1, 2, 1, 1})), miopenStatusUnknownError);
  EXPECT_EQ(op(TensorDescriptor(miopenFloat, {6, 4, 5, 1}), c), miopenStatusBadParm);
  const TensorDescriptor i8(miopenInt8, {2, 3, 4, 5});
  EXPECT_EQ(status_of([&] {
              TensorOpProblem::op_tensor(miopenTensorOpAdd, i8, i8, i8, &one, &one, &zero);
            }),
            miopenStatusNotImplemented);
  const TensorDescriptor c6(miopenFloat, {1, 2, 1, 2, 1, 2});
  EXPECT_EQ(status_of([&] {
              TensorOpProblem::op_tensor(miopenTensorOpAdd, c6, c6, c6, &one, &one, &zero);
            }),
            miopenStatusUnknownError);
  EXPECT_EQ(status_of([&] {
              TensorOpProblem::op_tensor(miopenTensorOpAdd, c, c, c, nullptr, &one, &zero);
            }),
            miopenStatusBadParm);
  // ScaleTensor: half, float, int32, double only.
  EXPECT_EQ(status_of([&] {
              TensorOpProblem::scale_tensor(TensorDescriptor(miopenBFloat16, {4}), &one);
            }),
            miopenStatusBadParm);
  // Transform: same rank, batch, lengths and type (int8 channel rules aside).
  const auto tr = [&](const TensorDescriptor& x, const TensorDescriptor& y, std::string* m) {
    return status_of([&] { TensorOpProblem::transform_tensor(x, y, &one, &zero); }, m);
  };
  std::string m;
  EXPECT_EQ(tr(c, TensorDescriptor(miopenHalf, {2, 3, 4, 5}), &m), miopenStatusUnknownError);
  EXPECT_NE(m.find("different data types"), std::string::npos) << m;
  EXPECT_EQ(tr(c, TensorDescriptor(miopenFloat, {3, 3, 4, 5}), &m), miopenStatusUnknownError);
  EXPECT_NE(m.find("batch sizes"), std::string::npos) << m;
  EXPECT_EQ(tr(c, TensorDescriptor(miopenFloat, {2, 3, 20}), &m), miopenStatusUnknownError);
  const auto i8t = [](std::vector<size_t> l) { return TensorDescriptor(miopenInt8, l); };
  EXPECT_EQ(tr(i8t({2, 3, 4, 4}), i8t({2, 4, 4, 4}), &m), miopenStatusSuccess);
  EXPECT_EQ(tr(i8t({2, 3, 4, 4}), i8t({2, 8, 4, 4}), &m), miopenStatusUnknownError);
  EXPECT_NE(m.find("Invalid y channel size"), std::string::npos) << m;
  EXPECT_EQ(tr(i8t({2, 6, 4, 4}), i8t({2, 4, 4, 4}), &m), miopenStatusUnknownError);
  EXPECT_NE(m.find("Invalid x channel size"), std::string::npos) << m;
  EXPECT_EQ(tr(i8t({2, 4}), i8t({2, 4}), &m), miopenStatusUnknownError);  // int8 needs >= 3-D
  const float two = 2.0f;
  EXPECT_EQ(status_of([&] {
              TensorOpProblem::transform_tensor(i8t({2, 3, 4, 4}), i8t({2, 4, 4, 4}), &two, &zero);
            }),
            miopenStatusNotImplemented);
}

TEST(TensorOpProblem, KeyIsMiopensLogCmdTensorOp) {
  const float a1 = 1.0f, a2 = 2.0f, b = 0.5f;
  const TensorDescriptor c(miopenFloat, {64, 3, 32, 32});
  EXPECT_EQ(TensorOpProblem::op_tensor(miopenTensorOpMul, c, c, c, &a1, &a2, &b).key(),
            "tensorop -A 1.000000 -B 2.000000 -G 0.500000 -n 64 -c 3 -H 32 -W 32 -o 3");
  const uint16_t h = 0x3e00;  // 1.5 in half
  EXPECT_EQ(TensorOpProblem::set_tensor(TensorDescriptor(miopenHalf, {2, 3, 4, 5}), &h).key(),
            "tensoropfp16 -n 2 -c 3 -H 4 -W 5 -o 0 -v 1.500000");
  EXPECT_EQ(TensorOpProblem::scale_tensor(TensorDescriptor(miopenFloat, {7}), &b).key(),
            "tensorop -n 7 -c 1 -H 1 -W 1 -o 1 -v 0.500000");
  EXPECT_EQ(
      TensorOpProblem::transform_tensor(TensorDescriptor(miopenFloat, {2, 3, 4, 5, 6}),
                                        TensorDescriptor(miopenFloat, {2, 3, 4, 5, 6}), &a2, &b)
          .key(),
      "tensorop -A 2.000000 -B 0.500000 -G 0.000000 -n 2 -c 3 -H 4 -W 30 -o 2");
}

}  // namespace
}  // namespace anydnn
