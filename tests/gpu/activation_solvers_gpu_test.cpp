// Every CUDA activation solver, alone, on every problem of tests/problems/activation_problems.txt
// it declares applicable (every mode, forward and backward, plain and blended), on device
// buffers, against the double reference (tests/activation_test_cases.hpp); a rerun gives
// identical bytes; misaligned buffers take the packed solver's scalar path; and the C API on the
// CUDA backend.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <random>
#include <string>

#include "activation/activation_solver.hpp"
#include "activation_test_cases.hpp"
#include "backend/backend.hpp"
#include "gpu/gpu_test_util.hpp"

namespace anydnn {
namespace {

using test::GpuBackend;

std::vector<std::string> every_cuda_activation_solver() {
  if (!test::gpu_present()) return {"NoCudaDevice"};
  GpuBackend g;
  std::vector<std::string> names;
  for (const auto& e : g.backend->solvers<ActivationSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

// Runs `s` on device copies of the host tensors; `offset` bytes into each allocation (to test
// misaligned buffers).
test::ActivRunner device_runner(const ActivationSolver& s, const ExecutionContext& ctx,
                                size_t offset = 0) {
  return [&s, &ctx, offset](const ActivationProblem& p, test::ActivHostBuffers& b, float alpha,
                            float beta) {
    auto dev = [offset](const driver::HostTensor& h) {
      test::DeviceTensor d(h.bytes.size() + offset);
      cudaMemcpy(static_cast<char*>(d.data()) + offset, h.bytes.data(), h.bytes.size(),
                 cudaMemcpyHostToDevice);
      return d;
    };
    const test::DeviceTensor x = dev(b.x), y = dev(b.y), dy = dev(b.dy), out = dev(b.out);
    auto at = [offset](const test::DeviceTensor& d) {
      return static_cast<char*>(d.data()) + offset;
    };
    ActivationBuffers ab;
    ab.x = at(x);
    ab.alpha = alpha;
    ab.beta = beta;
    if (p.forward()) {
      ab.y = at(out);
    } else {
      ab.y = at(y);
      ab.dy = at(dy);
      ab.dx = at(out);
    }
    s.run(ctx, p, ab);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(b.out.bytes.data(), at(out), b.out.bytes.size(), cudaMemcpyDeviceToHost);
  };
}

class ActivationSolverAloneGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(ActivationSolverAloneGpu, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const auto* entry = g.backend->solvers<ActivationSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const ActivationSolver& s = *entry->solver;
  const test::ActivRunner run = device_runner(s, ctx);
  int ran = 0;
  for (const test::ActivCase& c : test::load_activation_cases())
    for (const ActivDirection dir : {ActivDirection::Forward, ActivDirection::Backward}) {
      const ActivationProblem p = test::activation_problem(c, dir);
      const Applicability a = s.applicable(ctx, p);
      if (s.fallback_only() || p.geometry().contiguous())
        EXPECT_TRUE(a) << c.line << ": " << solver << " rejects it: " << a.reason;
      if (!a) continue;
      for (const auto& bl : test::activation_blends()) {
        test::check_activation(c, dir, bl.alpha, bl.beta, rng, run);
        ++ran;
      }
    }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, ActivationSolverAloneGpu,
                         ::testing::ValuesIn(every_cuda_activation_solver()),
                         [](const auto& info) { return info.param; });

// Buffers 2 bytes off a 16-byte boundary: the packed solver's scalar path.
TEST(ActivationSolversGpuExtra, MisalignedBuffersUseTheScalarPath) {
  REQUIRE_GPU();
  std::mt19937 rng(test::fresh_seed());
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const ActivationSolver& s = *g.backend->solvers<ActivationSolver>().find("ActivPacked")->solver;
  const test::ActivRunner run = device_runner(s, ctx, 2);
  for (const test::ActivCase& c : test::load_activation_cases()) {
    if (c.x.type() == miopenFloat) continue;  // 2 bytes: aligned for 16-bit data only
    for (const ActivDirection dir : {ActivDirection::Forward, ActivDirection::Backward})
      if (s.applicable(ctx, test::activation_problem(c, dir)))
        test::check_activation(c, dir, 1.0f, 0.0f, rng, run);
  }
}

// The same call twice gives the same bytes.
TEST(ActivationSolversGpuExtra, ResultsAreDeterministic) {
  REQUIRE_GPU();
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  std::mt19937 rng(test::fresh_seed());
  for (const auto& e : g.backend->solvers<ActivationSolver>().entries()) {
    const TensorDescriptor d(miopenHalf, {4, 16, 33, 35});
    const ActivationProblem p(ActivDirection::Forward, {miopenActivationTANH, 0.7, 1.3, 0},
                              {&d, &d});
    driver::HostTensor x = test::host_tensor(d), first = x, second = x;
    x.fill_uniform(rng, -2.0, 2.0, 1.0);
    for (driver::HostTensor* out : {&first, &second}) {
      const test::DeviceTensor dx(x), dy(*out);
      ActivationBuffers b;
      b.x = dx.data();
      b.y = dy.data();
      e.solver->run(ctx, p, b);
      dy.download(*out);
    }
    EXPECT_EQ(first.bytes, second.bytes) << e.solver->name();
  }
}

// The C API on the CUDA backend with device pointers.
TEST(ActivationApiGpu, ForwardAndBackwardOnDeviceMemory) {
  REQUIRE_GPU();
  miopenHandle_t h = nullptr;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenTensorDescriptor_t t = nullptr;
  miopenActivationDescriptor_t a = nullptr;
  ASSERT_EQ(miopenCreateTensorDescriptor(&t), miopenStatusSuccess);
  ASSERT_EQ(miopenSet4dTensorDescriptor(t, miopenFloat, 2, 3, 17, 19), miopenStatusSuccess);
  ASSERT_EQ(miopenCreateActivationDescriptor(&a), miopenStatusSuccess);
  const ref::ActivationDesc rd{miopenActivationLOGISTIC, 0, 0, 0};
  ASSERT_EQ(miopenSetActivationDescriptor(a, rd.mode, 0, 0, 0), miopenStatusSuccess);
  const TensorDescriptor d(miopenFloat, {2, 3, 17, 19});
  driver::HostTensor x = test::host_tensor(d), y = x, dy = x, dx = x;
  std::mt19937 rng(test::fresh_seed());
  x.fill_uniform(rng, -2.0, 2.0, 1.0);
  dy.fill_uniform(rng, -0.5, 0.5, 1.0);
  test::DeviceTensor xd(x), yd(y), dyd(dy), dxd(dx);
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenActivationForward(h, a, &one, t, xd.data(), &zero, t, yd.data()),
            miopenStatusSuccess);
  ASSERT_EQ(miopenActivationBackward(h, a, &one, t, yd.data(), t, dyd.data(), t, xd.data(), &zero,
                                     t, dxd.data()),
            miopenStatusSuccess);
  yd.download(y);
  dxd.download(dx);
  const auto xs = ref::to_logical(x.view()), ys = ref::to_logical(y.view());
  const double tol = ref::activation_tolerance(miopenFloat);
  EXPECT_EQ(ref::activation_mismatch(ref::activation_forward(rd, xs), ys, tol), -1);
  EXPECT_EQ(
      ref::activation_mismatch(ref::activation_backward(rd, ref::to_logical(dy.view()), xs, ys),
                               ref::to_logical(dx.view()), tol),
      -1);
  miopenDestroyActivationDescriptor(a);
  miopenDestroyTensorDescriptor(t);
  miopenDestroy(h);
}

}  // namespace
}  // namespace anydnn
