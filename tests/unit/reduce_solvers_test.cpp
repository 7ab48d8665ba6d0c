// Every CPU reduction solver, alone, on every case of tests/problems/reduce_problems.txt it
// declares applicable (one test each, named <solver>_<index>_<case>), against the double
// reference: inputs drawn fresh per run, C poisoned with NaN (or drawn, when beta reads it),
// indices exact, bytes of C outside its elements untouched. Also: the plan, MIOpen's sizes, the
// problem's validation (status and message), and that every case has a solver.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "reduce_test_cases.hpp"
#include "reduction/reduce_plan.hpp"
#include "reduction/reduce_solver.hpp"

namespace anydnn {
namespace {

const Config& cpu_config() {
  static const Config cfg = [] {
    Config c;
    c.num_threads = 2;
    return c;
  }();
  return cfg;
}

Backend& cpu_backend() {
  static std::unique_ptr<Backend> b = make_cpu_backend(cpu_config());
  return *b;
}

struct Param {
  std::string solver;
  size_t index;
  std::string name;
};

std::vector<Param> params() {
  std::vector<Param> out;
  const auto all = test::reduce_cases();
  const ExecutionContext ctx{cpu_config(), cpu_backend()};
  for (const auto& e : cpu_backend().solvers<ReduceSolver>().entries())
    for (size_t i = 0; i < all.size(); ++i)
      if (e.solver->applicable(ctx, test::make_reduce_problem(all[i])))
        out.push_back({std::string(e.solver->name()), i, all[i].name});
  return out;
}

class ReduceSolverTest : public ::testing::TestWithParam<Param> {};

TEST_P(ReduceSolverTest, MatchesReference) {
  const Param& prm = GetParam();
  const test::ReduceCase k = test::reduce_cases()[prm.index];
  SCOPED_TRACE(k.line);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  const auto* e = cpu_backend().solvers<ReduceSolver>().find(prm.solver);
  ASSERT_NE(e, nullptr);
  const ExecutionContext ctx{cpu_config(), cpu_backend()};
  test::check_reduce_case(
      k, seed,
      [&](const ReduceProblem& p, const driver::HostTensor& a, driver::HostTensor& c,
          std::vector<int>& idx) {
        e->solver->run(ctx, p.plan(), {a.data(), c.data(), idx.empty() ? nullptr : idx.data()});
      });
}

INSTANTIATE_TEST_SUITE_P(List, ReduceSolverTest, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           std::string n = i.param.solver + "_" + std::to_string(i.param.index) +
                                           "_" + i.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(ReduceList, EveryCaseHasASolverAndSpecialisedOnesAreUsed) {
  const ExecutionContext ctx{cpu_config(), cpu_backend()};
  int rows = 0, columns = 0;
  for (const auto& k : test::reduce_cases()) {
    const ReduceProblem p = test::make_reduce_problem(k);
    bool any = false;
    for (const auto& e : cpu_backend().solvers<ReduceSolver>().entries()) {
      if (!e.solver->applicable(ctx, p)) continue;
      any = true;
      rows += e.solver->name() == "ReduceRows";
      columns += e.solver->name() == "ReduceColumns";
    }
    EXPECT_TRUE(any) << k.line;
  }
  EXPECT_GT(rows, 0);
  EXPECT_GT(columns, 0);
}

TEST(ReducePlan, MergesAndKeepsReducedOrder) {
  // NCHW 2x3x5x7 over H, W: outputs N*C (merged), one run of 35.
  const size_t lens[] = {2, 3, 5, 7}, strides[] = {105, 35, 7, 1}, cl[] = {2, 3, 1, 1},
               cs[] = {3, 1, 1, 1};
  const ReducePlan p =
      plan_reduce(MIOPEN_REDUCE_TENSOR_ADD, miopenFloat, false, false, 4, lens, strides, cl, cs);
  EXPECT_EQ(p.out_ndim, 1);
  EXPECT_EQ(p.out_count, 6u);
  EXPECT_EQ(p.red_ndim, 1);
  EXPECT_EQ(p.red_count, 35u);
  EXPECT_TRUE(p.red_contiguous());
  // Over N and H: reduced dimensions stay in order (N then H), outputs C and W.
  const size_t cl2[] = {1, 3, 1, 7}, cs2[] = {21, 7, 7, 1};
  const ReducePlan q =
      plan_reduce(MIOPEN_REDUCE_TENSOR_ADD, miopenFloat, false, false, 4, lens, strides, cl2, cs2);
  EXPECT_EQ(q.red_ndim, 2);
  EXPECT_EQ(q.red_lens[0], 2u);
  EXPECT_EQ(q.red_lens[1], 5u);
  EXPECT_EQ(q.out_count, 21u);
}

ReduceTensorDesc desc_of(miopenReduceTensorOp_t op, bool indices) {
  return make_reduce_desc(op, miopenFloat, 0, indices ? 1 : 0, 0);
}

TEST(ReduceSizes, MatchMiopens) {
  const TensorDescriptor a(miopenFloat, {100, 60, 16, 240}, {}),
      c(miopenFloat, {1, 60, 1, 240}, {});
  // invariant 14400, to-reduce 1600 > 1024: multi-block, min(2, 32) blocks per output.
  EXPECT_EQ(reduce_workspace_size(desc_of(MIOPEN_REDUCE_TENSOR_ADD, false), a, c),
            14400u * 2 * 4 + 4096);
  EXPECT_EQ(reduce_workspace_size(desc_of(MIOPEN_REDUCE_TENSOR_MAX, true), a, c),
            14400u * 2 * 8 + 64 + 4 + 64 + 4096);
  EXPECT_EQ(reduce_indices_size(desc_of(MIOPEN_REDUCE_TENSOR_MAX, true), a, c), 14400u * 4);
  EXPECT_EQ(reduce_indices_size(desc_of(MIOPEN_REDUCE_TENSOR_ADD, true), a, c), 0u);
  const TensorDescriptor small(miopenFloat, {4, 5}, {}), row(miopenFloat, {4, 1}, {});
  EXPECT_EQ(reduce_workspace_size(desc_of(MIOPEN_REDUCE_TENSOR_ADD, false), small, row), 4096u);
}

miopenStatus_t status_of(const std::function<void()>& f, std::string* msg = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (msg) *msg = e.what();
    return e.status();
  }
  return miopenStatusSuccess;
}

TEST(ReduceProblemCheck, RejectsWithMiopensStatus) {
  const float one = 1.0f, zero = 0.0f;
  const auto d = desc_of(MIOPEN_REDUCE_TENSOR_ADD, false);
  const TensorDescriptor a(miopenFloat, {2, 3, 4}, {});
  const auto run = [&](const TensorDescriptor& c, const ReduceTensorDesc& dd = {},
                       size_t ws = 1 << 20, const void* al = nullptr) {
    return status_of([&] { ReduceProblem(dd, a, c, al ? al : &one, &zero, 1 << 20, ws); });
  };
  EXPECT_EQ(run(TensorDescriptor(miopenFloat, {2, 1, 4}, {})), miopenStatusSuccess);
  EXPECT_EQ(run(TensorDescriptor(miopenFloat, {2, 3, 4}, {})), miopenStatusUnknownError);
  EXPECT_EQ(run(TensorDescriptor(miopenFloat, {2, 2, 4}, {})), miopenStatusUnknownError);
  EXPECT_EQ(run(TensorDescriptor(miopenFloat, {2, 1}, {})), miopenStatusUnknownError);
  EXPECT_EQ(run(TensorDescriptor(miopenHalf, {2, 1, 4}, {})), miopenStatusNotImplemented);
  EXPECT_EQ(run(TensorDescriptor(miopenFloat, {2, 1, 4}, {}), d, 0), miopenStatusUnknownError);
  std::string msg;
  EXPECT_EQ(status_of(
                [&] {
                  ReduceProblem(d, a, TensorDescriptor(miopenFloat, {2, 1, 4}, {}), nullptr, &zero,
                                0, 1 << 20);
                },
                &msg),
            miopenStatusBadParm);
  EXPECT_NE(msg.find("alpha"), std::string::npos);
  EXPECT_EQ(status_of([] { make_reduce_desc(9, 1, 0, 0, 0); }), miopenStatusBadParm);
  EXPECT_EQ(status_of([] { make_reduce_desc(3, 1, 0, 1, 1); }), miopenStatusUnknownError);
  const TensorDescriptor a7(miopenFloat, {1, 1, 1, 1, 1, 1, 2}, {}),
      c7(miopenFloat, {1, 1, 1, 1, 1, 1, 1}, {});
  EXPECT_EQ(status_of([&] { ReduceProblem(d, a7, c7, &one, &zero, 0, 1 << 20); }),
            miopenStatusUnknownError);
}

TEST(ReduceProblemCheck, KeyIsMiopensLogCmdRedux) {
  const float one = 1.0f, half = 0.5f;
  const auto d = make_reduce_desc(MIOPEN_REDUCE_TENSOR_MAX, miopenFloat, 1, 1, 0);
  const TensorDescriptor a(miopenHalf, {4, 3, 5, 7}, {}), c(miopenHalf, {1, 3, 1, 1}, {});
  const ReduceProblem p(d, a, c, &one, &half, 1 << 20, 1 << 20);
  EXPECT_EQ(p.key(), "reducefp16 -A 1 -B 0.5 -C 1 -D 4,3,5,7 -I 1 -N 1 -O 3 -R 0,2,3");
}

}  // namespace
}  // namespace anydnn
