// Every CUDA softmax solver, alone, on every problem of tests/problems/softmax_problems.txt it
// declares applicable (every algorithm and mode, forward and backward, plain and blended), on
// device buffers, against the double reference (tests/softmax_test_cases.hpp); both kernel
// shapes (thread per pixel, block per group) on a problem large enough for the first; a rerun
// gives identical bytes; and the C API on the CUDA backend.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <random>
#include <string>

#include "backend/backend.hpp"
#include "gpu/gpu_test_util.hpp"
#include "softmax/softmax_solver.hpp"
#include "softmax_test_cases.hpp"

namespace anydnn {
namespace {

using test::GpuBackend;

std::vector<std::string> every_cuda_softmax_solver() {
  if (!test::gpu_present()) return {"NoCudaDevice"};
  GpuBackend g;
  std::vector<std::string> names;
  for (const auto& e : g.backend->solvers<SoftmaxSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

test::SoftmaxRunner device_runner(const SoftmaxSolver& s, const ExecutionContext& ctx) {
  return [&s, &ctx](const SoftmaxProblem& p, test::SoftmaxHostBuffers& b) {
    const test::DeviceTensor in(b.in), dy(b.dy), out(b.out);
    SoftmaxBuffers sb;
    if (p.forward()) {
      sb.x = in.data();
      sb.y = out.data();
    } else {
      sb.y = in.data();
      sb.dy = dy.data();
      sb.dx = out.data();
    }
    s.run(ctx, p, sb);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    out.download(b.out);
  };
}

class SoftmaxSolverAloneGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(SoftmaxSolverAloneGpu, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const auto* entry = g.backend->solvers<SoftmaxSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const SoftmaxSolver& s = *entry->solver;
  const test::SoftmaxRunner run = device_runner(s, ctx);
  int ran = 0;
  for (const test::SoftmaxCase& c : test::load_softmax_cases())
    for (const SoftmaxDirection dir : {SoftmaxDirection::Forward, SoftmaxDirection::Backward})
      for (const auto& bl : test::softmax_blends()) {
        const SoftmaxProblem p = test::softmax_problem(c, dir, bl.alpha, bl.beta);
        const Applicability a = s.applicable(ctx, p);
        if (s.fallback_only() || p.packed())
          EXPECT_TRUE(a) << c.line << ": " << solver << " rejects it: " << a.reason;
        if (!a) continue;
        test::check_softmax(c, dir, bl.alpha, bl.beta, rng, run);
        ++ran;
      }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, SoftmaxSolverAloneGpu,
                         ::testing::ValuesIn(every_cuda_softmax_solver()),
                         [](const auto& info) { return info.param; });

// CHANNEL mode with enough pixels takes the thread-per-pixel kernel (the list's problems are
// too small for it); every solver, every algorithm, against the reference; twice, same bytes.
TEST(SoftmaxSolversGpuExtra, ThreadPerPixelKernelAndDeterminism) {
  REQUIRE_GPU();
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  std::mt19937 rng(test::fresh_seed());
  for (const auto& e : g.backend->solvers<SoftmaxSolver>().entries())
    for (int a = 0; a <= 2; ++a) {
      test::SoftmaxCase c;
      c.desc = {static_cast<miopenSoftmaxAlgorithm_t>(a), MIOPEN_SOFTMAX_MODE_CHANNEL};
      c.x = c.y = c.dy = c.dx = TensorDescriptor(miopenFloat, {16, 21, 64, 65});
      c.line = "softmax -n 16 -c 21 -H 64 -W 65 -a " + std::to_string(a) + " -m 1";
      const test::SoftmaxRunner run = device_runner(*e.solver, ctx);
      for (const SoftmaxDirection dir : {SoftmaxDirection::Forward, SoftmaxDirection::Backward})
        test::check_softmax(c, dir, 1.0f, 0.0f, rng, run);
      const SoftmaxProblem p = test::softmax_problem(c, SoftmaxDirection::Forward, 1.0f, 0.0f);
      driver::HostTensor x = test::softmax_host_tensor(c.x), first = x, second = x;
      x.fill_uniform(rng, -2.0, 2.0, 1.0);
      for (driver::HostTensor* out : {&first, &second}) {
        const test::DeviceTensor dx(x), dy(*out);
        SoftmaxBuffers b;
        b.x = dx.data();
        b.y = dy.data();
        e.solver->run(ctx, p, b);
        dy.download(*out);
      }
      EXPECT_EQ(first.bytes, second.bytes) << e.solver->name();
    }
}

// The C API on the CUDA backend with device pointers.
TEST(SoftmaxApiGpu, ForwardAndBackwardOnDeviceMemory) {
  REQUIRE_GPU();
  miopenHandle_t h = nullptr;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenTensorDescriptor_t t = nullptr;
  ASSERT_EQ(miopenCreateTensorDescriptor(&t), miopenStatusSuccess);
  ASSERT_EQ(miopenSet4dTensorDescriptor(t, miopenFloat, 4, 1000, 1, 1), miopenStatusSuccess);
  const TensorDescriptor d(miopenFloat, {4, 1000, 1, 1});
  driver::HostTensor x = test::softmax_host_tensor(d), y = x, dy = x, dx = x;
  std::mt19937 rng(test::fresh_seed());
  x.fill_uniform(rng, -2.0, 2.0, 1.0);
  dy.fill_uniform(rng, -0.5, 0.5, 1.0);
  test::DeviceTensor xd(x), yd(y), dyd(dy), dxd(dx);
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenSoftmaxForward(h, &one, t, xd.data(), &zero, t, yd.data()), miopenStatusSuccess);
  ASSERT_EQ(miopenSoftmaxBackward(h, &one, t, yd.data(), t, dyd.data(), &zero, t, dxd.data()),
            miopenStatusSuccess);
  yd.download(y);
  dxd.download(dx);
  const ref::SoftmaxDesc rd{};
  const std::array<size_t, 4> lens = {4, 1000, 1, 1};
  const auto ys = ref::to_logical(y.view());
  EXPECT_LT(ref::softmax_rms_error(ref::softmax_forward(rd, lens, ref::to_logical(x.view())), ys),
            1e-6);
  EXPECT_LT(ref::softmax_rms_error(ref::softmax_backward(rd, lens, ys, ref::to_logical(dy.view())),
                                   ref::to_logical(dx.view())),
            1e-6);
  miopenDestroyTensorDescriptor(t);
  miopenDestroy(h);
}

}  // namespace
}  // namespace anydnn
