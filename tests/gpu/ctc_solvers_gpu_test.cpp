// Every CUDA CTC loss solver, alone, on every problem of tests/problems/ctc_problems.txt it
// declares applicable (softmax applied and not), on device buffers, against the double
// reference (tests/ctc_test_cases.hpp); a rerun gives identical bytes
// (MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC); and the C API on the CUDA backend with device buffers.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cstring>
#include <random>
#include <string>

#include "backend/backend.hpp"
#include "ctc/ctc_solver.hpp"
#include "ctc_test_cases.hpp"
#include "gpu/gpu_test_util.hpp"

namespace anydnn {
namespace {

using test::GpuBackend;

std::vector<std::string> every_cuda_ctc_solver() {
  if (!test::gpu_present()) return {"NoCudaDevice"};
  GpuBackend g;
  std::vector<std::string> names;
  for (const auto& e : g.backend->solvers<CtcLossSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

// Runs on device copies of the host buffers (the workspace keeps its 0xff fill) and brings the
// losses and gradients back.
test::CtcRunner device_runner(const CtcLossSolver& s, const ExecutionContext& ctx) {
  return [&s, &ctx](const CtcLossProblem& p, test::CtcHostBuffers& b) {
    const test::DeviceTensor probs(b.probs), grads(b.grads);
    test::DeviceTensor losses(b.losses.size() * sizeof(float)), work(b.workspace.size());
    ASSERT_EQ(cudaMemcpy(losses.data(), b.losses.data(), losses.bytes(), cudaMemcpyHostToDevice),
              cudaSuccess);
    work.poison();
    CtcLossBuffers cb;
    cb.probs = probs.data();
    cb.losses = losses.data();
    cb.gradients = grads.data();
    cb.workspace = work.data();
    s.run(ctx, p, cb);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    grads.download(b.grads);
    ASSERT_EQ(cudaMemcpy(b.losses.data(), losses.data(), losses.bytes(), cudaMemcpyDeviceToHost),
              cudaSuccess);
  };
}

class CtcLossSolverAloneGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(CtcLossSolverAloneGpu, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const auto* entry = g.backend->solvers<CtcLossSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const CtcLossSolver& s = *entry->solver;
  const test::CtcRunner run = device_runner(s, ctx);
  int ran = 0;
  for (const test::CtcCase& c : test::load_ctc_cases()) {
    const Applicability a = s.applicable(ctx, test::ctc_problem(c, test::draw_ctc_labels(c, rng)));
    EXPECT_TRUE(a) << c.line << ": " << solver << " rejects it: " << a.reason;
    if (!a) continue;
    test::check_ctc(c, rng, run);
    ++ran;
  }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, CtcLossSolverAloneGpu,
                         ::testing::ValuesIn(every_cuda_ctc_solver()),
                         [](const auto& info) { return info.param; });

// Twice on the same inputs: the same bytes (no atomics, a fixed summation order).
TEST(CtcLossSolversGpuExtra, RerunGivesIdenticalBytes) {
  REQUIRE_GPU();
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  std::mt19937 rng(test::fresh_seed());
  for (const auto& e : g.backend->solvers<CtcLossSolver>().entries()) {
    test::CtcCase c;
    ASSERT_FALSE(driver::parse_ctc_line("ctc -n 8 -c 40 -l 15 -k 50", c.spec));
    c.probs = c.grads = TensorDescriptor(miopenFloat, {50, 8, 41});
    c.line = "ctc -n 8 -c 40 -l 15 -k 50";
    const std::vector<int> labels = test::draw_ctc_labels(c, rng);
    const CtcLossProblem p = test::ctc_problem(c, labels);
    test::CtcHostBuffers first;
    first.probs = test::ctc_host_tensor(c.probs);
    first.grads = test::ctc_host_tensor(c.grads);
    test::fill_ctc_probs(c, first.probs, rng);
    first.losses.assign(8, 0.0f);
    first.workspace.assign(p.workspace_size(), 0);
    test::CtcHostBuffers second = first;
    const test::CtcRunner run = device_runner(*e.solver, ctx);
    run(p, first);
    run(p, second);
    EXPECT_EQ(first.grads.bytes, second.grads.bytes) << e.solver->name();
    EXPECT_EQ(std::memcmp(first.losses.data(), second.losses.data(), 8 * sizeof(float)), 0);
  }
}

// The C API on the CUDA backend with device pointers (host label arrays, as MIOpen's).
TEST(CtcApiGpu, LossOnDeviceMemoryMatchesTheReference) {
  REQUIRE_GPU();
  miopenHandle_t h = nullptr;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenTensorDescriptor_t t = nullptr;
  miopenCTCLossDescriptor_t d = nullptr;
  ASSERT_EQ(miopenCreateTensorDescriptor(&t), miopenStatusSuccess);
  const int dims[3] = {20, 4, 10};
  ASSERT_EQ(miopenSetTensorDescriptor(t, miopenFloat, 3, dims, nullptr), miopenStatusSuccess);
  ASSERT_EQ(miopenCreateCTCLossDescriptor(&d), miopenStatusSuccess);
  ASSERT_EQ(miopenSetCTCLossDescriptor(d, miopenFloat, 2, true), miopenStatusSuccess);
  const std::vector<int> labels = {1, 3, 3, 4, 5, 9, 1, 1, 7, 8, 6, 5, 4, 3, 1, 0, 5, 6, 7, 8};
  const std::vector<int> ll = {5, 5, 5, 5}, il = {20, 18, 11, 20};
  size_t ws = 0;
  ASSERT_EQ(miopenGetCTCLossWorkspaceSize(h, t, t, labels.data(), ll.data(), il.data(),
                                          MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d, &ws),
            miopenStatusSuccess);
  const TensorDescriptor desc(miopenFloat, {20, 4, 10});
  driver::HostTensor x = test::ctc_host_tensor(desc), grads = x;
  std::mt19937 rng(test::fresh_seed());
  x.fill_uniform(rng, -2.0, 2.0, 1.0);
  test::DeviceTensor xd(x), gd(grads), losses(4 * sizeof(float)), work(ws);
  ASSERT_EQ(miopenCTCLoss(h, t, xd.data(), labels.data(), ll.data(), il.data(), losses.data(), t,
                          gd.data(), MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d, work.data(), ws),
            miopenStatusSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  gd.download(grads);
  std::vector<float> l(4);
  ASSERT_EQ(cudaMemcpy(l.data(), losses.data(), sizeof(float) * 4, cudaMemcpyDeviceToHost),
            cudaSuccess);
  const ref::CtcResult want = ref::ctc_loss({2, true}, {20, 4, 10}, x.values(), labels, ll, il);
  for (int n = 0; n < 4; ++n)
    EXPECT_NEAR(l[n], want.losses[n], test::kCtcLossTol * std::max(1.0, want.losses[n]));
  for (size_t i = 0; i < want.gradients.size(); ++i)
    ASSERT_NEAR(grads.get(i), want.gradients[i],
                test::kCtcGradTol * std::max(1.0, std::abs(want.gradients[i])))
        << "element " << i;
  miopenDestroyCTCLossDescriptor(d);
  miopenDestroyTensorDescriptor(t);
  miopenDestroy(h);
}

}  // namespace
}  // namespace anydnn
