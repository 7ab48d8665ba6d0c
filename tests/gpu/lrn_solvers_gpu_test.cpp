// Every CUDA LRN solver, alone, on every problem of tests/problems/lrn_problems.txt it declares
// applicable (forward keeping the scale, forward without, backward), on device buffers, against
// the double reference (tests/lrn_test_cases.hpp); a rerun gives identical bytes; and the C API
// on the CUDA backend (forward keeping the scale in a device workspace, backward from it).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <random>
#include <string>

#include "backend/backend.hpp"
#include "gpu/gpu_test_util.hpp"
#include "lrn/lrn_solver.hpp"
#include "lrn_test_cases.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using test::GpuBackend;

std::vector<std::string> every_cuda_lrn_solver() {
  if (!test::gpu_present()) return {"NoCudaDevice"};
  GpuBackend g;
  std::vector<std::string> names;
  for (const auto& e : g.backend->solvers<LrnSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

test::LrnRunner device_runner(const LrnSolver& s, const ExecutionContext& ctx) {
  return [&s, &ctx](const LrnProblem& p, test::LrnHostBuffers& b) {
    const test::DeviceTensor x(b.x), y(b.y), dy(b.dy), dx(b.dx), ws(b.ws);
    LrnBuffers lb;
    lb.x = x.data();
    lb.y = y.data();
    lb.dy = dy.data();
    lb.dx = dx.data();
    lb.workspace = ws.data();
    s.run(ctx, p, lb);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    if (p.forward()) {
      y.download(b.y);
      ws.download(b.ws);
    } else {
      dx.download(b.dx);
    }
  };
}

class LrnSolverAloneGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(LrnSolverAloneGpu, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const auto* entry = g.backend->solvers<LrnSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const LrnSolver& s = *entry->solver;
  const test::LrnRunner run = device_runner(s, ctx);
  int ran = 0;
  for (const test::LrnCase& c : test::load_lrn_cases())
    for (const test::LrnRun& r : test::lrn_runs()) {
      const LrnProblem p = test::lrn_problem(c, r.dir, r.save_scale);
      const Applicability a = s.applicable(ctx, p);
      const bool mine = (solver == "LrnCrossChannel") == p.cross_channel();
      EXPECT_EQ(static_cast<bool>(a), mine) << c.line << ": " << a.reason;
      if (!a) continue;
      test::check_lrn(c, r.dir, r.save_scale, rng, run);
      ++ran;
    }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, LrnSolverAloneGpu, ::testing::ValuesIn(every_cuda_lrn_solver()),
                         [](const auto& info) { return info.param; });

// Every solver twice on an AlexNet-sized problem, forward and backward: identical bytes.
TEST(LrnSolversGpuExtra, RerunGivesIdenticalBytes) {
  REQUIRE_GPU();
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  std::mt19937 rng(test::fresh_seed());
  for (const auto& e : g.backend->solvers<LrnSolver>().entries()) {
    test::LrnCase c;
    c.desc = {e.solver->name() == std::string_view("LrnCrossChannel") ? miopenLRNCrossChannel
                                                                      : miopenLRNWithinChannel,
              5, 1e-4, 0.75, 2.0};
    c.x = c.y = c.dy = c.dx = TensorDescriptor(miopenFloat, {8, 96, 55, 55});
    for (const test::LrnRun& r : test::lrn_runs()) {
      const LrnProblem p = test::lrn_problem(c, r.dir, r.save_scale);
      test::LrnHostBuffers b;
      b.x = b.y = b.dy = b.dx = b.ws = test::lrn_host_tensor(c.x);
      b.x.fill_uniform(rng, -2.0, 2.0, 1.0);
      b.y.fill_uniform(rng, -2.0, 2.0, 1.0);
      b.dy.fill_uniform(rng, -1.0, 1.0, 1.0);
      b.ws.fill_uniform(rng, 1.0, 2.0, 1.0);
      test::LrnHostBuffers first = b, second = b;
      const test::LrnRunner run = device_runner(*e.solver, ctx);
      run(p, first);
      run(p, second);
      EXPECT_EQ(first.y.bytes, second.y.bytes) << e.solver->name();
      EXPECT_EQ(first.ws.bytes, second.ws.bytes) << e.solver->name();
      EXPECT_EQ(first.dx.bytes, second.dx.bytes) << e.solver->name();
    }
  }
}

// The C API on the CUDA backend with device pointers, both modes.
TEST(LrnApiGpu, ForwardAndBackwardOnDeviceMemory) {
  REQUIRE_GPU();
  miopenHandle_t h = nullptr;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenTensorDescriptor_t t = nullptr;
  ASSERT_EQ(miopenCreateTensorDescriptor(&t), miopenStatusSuccess);
  ASSERT_EQ(miopenSet4dTensorDescriptor(t, miopenFloat, 4, 16, 13, 11), miopenStatusSuccess);
  miopenLRNDescriptor_t lrn = nullptr;
  ASSERT_EQ(miopenCreateLRNDescriptor(&lrn), miopenStatusSuccess);
  size_t ws_bytes = 0;
  ASSERT_EQ(miopenLRNGetWorkSpaceSize(t, &ws_bytes), miopenStatusSuccess);
  const TensorDescriptor d(miopenFloat, {4, 16, 13, 11});
  ASSERT_EQ(ws_bytes, d.num_bytes());
  const std::array<size_t, 4> lens = {4, 16, 13, 11};
  std::mt19937 rng(test::fresh_seed());
  for (int m = 0; m <= 1; ++m) {
    const ref::LrnDesc rd{static_cast<miopenLRNMode_t>(m), 5, 1.5, 0.75, 2.0};
    ASSERT_EQ(miopenSetLRNDescriptor(lrn, rd.mode, rd.n, rd.alpha, rd.beta, rd.k),
              miopenStatusSuccess);
    driver::HostTensor x = test::lrn_host_tensor(d), y = x, dy = x, dx = x, ws = x;
    x.fill_uniform(rng, -2.0, 2.0, 1.0);
    dy.fill_uniform(rng, -0.5, 0.5, 1.0);
    test::DeviceTensor xd(x), yd(y), dyd(dy), dxd(dx), wsd(ws);
    const float one = 1.0f, zero = 0.0f;
    ASSERT_EQ(miopenLRNForward(h, lrn, &one, t, xd.data(), &zero, t, yd.data(), true, wsd.data()),
              miopenStatusSuccess);
    ASSERT_EQ(miopenLRNBackward(h, lrn, &one, t, yd.data(), t, dyd.data(), t, xd.data(), &zero, t,
                                dxd.data(), wsd.data()),
              miopenStatusSuccess);
    yd.download(y);
    wsd.download(ws);
    dxd.download(dx);
    const auto xs = ref::to_logical(x.view()), ys = ref::to_logical(y.view()),
               scale = ref::to_logical(ws.view());
    EXPECT_LT(ref::rms_range(ref::lrn_forward(rd, lens, xs, nullptr), ys), 1e-6) << "mode " << m;
    EXPECT_LT(ref::rms_range(ref::lrn_backward(rd, lens, xs, ys, ref::to_logical(dy.view()), scale),
                             ref::to_logical(dx.view())),
              1e-6)
        << "mode " << m;
  }
  miopenDestroyLRNDescriptor(lrn);
  miopenDestroyTensorDescriptor(t);
  miopenDestroy(h);
}

}  // namespace
}  // namespace anydnn
