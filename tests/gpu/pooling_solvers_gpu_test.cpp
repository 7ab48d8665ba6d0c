// Every CUDA pooling solver, alone, on every problem of tests/pooling_test_cases.hpp it declares
// applicable (every type and mode, max with every index type and mode, forward saving indices
// and backward reading them), on device buffers, against the double reference; a rerun gives
// identical bytes; and the C API on the CUDA backend (forward with indices, then backward).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <random>
#include <string>

#include "backend/backend.hpp"
#include "gpu/gpu_test_util.hpp"
#include "pooling/pooling_solver.hpp"
#include "pooling_test_cases.hpp"

namespace anydnn {
namespace {

using test::GpuBackend;

std::vector<std::string> every_cuda_pooling_solver() {
  if (!test::gpu_present()) return {"NoCudaDevice"};
  GpuBackend g;
  std::vector<std::string> names;
  for (const auto& e : g.backend->solvers<PoolingSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

// Copies the host buffers (outputs already poisoned) to the device, runs the solver, copies the
// outputs and the index workspace back.
test::PoolRunner device_runner(const PoolingSolver& s, const ExecutionContext& ctx) {
  return [&s, &ctx](const PoolingProblem& p, test::PoolHost& h) {
    const test::DeviceTensor x(h.x), y(h.y), dy(h.dy), dx(h.dx);
    test::DeviceTensor ws(h.ws.size());
    ASSERT_CUDA_OK(cudaMemcpy(ws.data(), h.ws.data(), h.ws.size(), cudaMemcpyHostToDevice));
    PoolingBuffers b;
    b.x = x.data();
    b.y = y.data();
    b.dy = dy.data();
    b.dx = dx.data();
    b.workspace = ws.data();
    s.run(ctx, p, b);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    if (p.forward())
      y.download(h.y);
    else
      dx.download(h.dx);
    ASSERT_CUDA_OK(cudaMemcpy(h.ws.data(), ws.data(), h.ws.size(), cudaMemcpyDeviceToHost));
  };
}

class PoolingSolverAloneGpu : public ::testing::TestWithParam<std::string> {};

// One test per solver, named after it (--gtest_filter='*PoolFwdDirect*' runs one).
TEST_P(PoolingSolverAloneGpu, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const auto* entry = g.backend->solvers<PoolingSolver>().find(GetParam());
  ASSERT_NE(entry, nullptr);
  const PoolingSolver& s = *entry->solver;
  const auto takes = [&](const PoolingProblem& p) { return bool(s.applicable(ctx, p)); };
  const test::PoolRunner run = device_runner(s, ctx);
  int ran = 0;
  for (const auto& c : test::pooling_cases())
    for (const auto& v : test::pooling_variants()) {
      test::check_pooling(c, v, rng, takes, run, ran);
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(ran, 0) << GetParam() << " took no problem";
}

INSTANTIATE_TEST_SUITE_P(Solvers, PoolingSolverAloneGpu,
                         ::testing::ValuesIn(every_cuda_pooling_solver()),
                         [](const auto& info) { return info.param; });

// Each solver twice on the same inputs: the same bytes (outputs and indices).
TEST(PoolingSolversGpuExtra, RerunGivesIdenticalBytes) {
  REQUIRE_GPU();
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  std::mt19937 rng(test::fresh_seed());
  PoolingDesc desc;
  desc.lens = {3, 3};
  desc.pads = {1, 1};
  desc.strides = {2, 2};
  const TensorDescriptor x(miopenFloat, {4, 16, 33, 31});
  const TensorDescriptor y(miopenFloat, pooling_output_lens(desc, x));
  const PoolDescriptors d{&x, &y, &x, &y};
  const PoolingProblem fwd(PoolDirection::Forward, desc, d, true);
  const PoolingProblem bwd(PoolDirection::Backward, desc, d, false);
  for (const auto& e : g.backend->solvers<PoolingSolver>().entries()) {
    test::PoolHost first, second;
    first.x = test::host_tensor(x);
    first.x.fill_uniform(rng, -1.0, 1.0, 1.0);
    first.dy = test::host_tensor(y);
    first.dy.fill_uniform(rng, -1.0, 1.0, 1.0);
    first.y = test::host_tensor(y);
    first.dx = test::host_tensor(x);
    first.ws.assign(pooling_workspace_size(desc, y), 0);
    second = first;
    const test::PoolRunner run = device_runner(*e.solver, ctx);
    for (test::PoolHost* h : {&first, &second})
      for (const PoolingProblem* p : {&fwd, &bwd})
        if (e.solver->applicable(ctx, *p)) {
          run(*p, *h);
          ASSERT_FALSE(HasFatalFailure());
        }
    EXPECT_EQ(first.y.bytes, second.y.bytes) << e.solver->name();
    EXPECT_EQ(first.dx.bytes, second.dx.bytes) << e.solver->name();
    EXPECT_EQ(first.ws, second.ws) << e.solver->name();
  }
}

// The C API on the CUDA backend with device pointers: max pooling forward saving indices, then
// backward reading them, against the reference.
TEST(PoolingApiGpu, ForwardWithIndicesThenBackwardOnDeviceMemory) {
  REQUIRE_GPU();
  miopenHandle_t h = nullptr;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenTensorDescriptor_t xt = nullptr, yt = nullptr;
  miopenPoolingDescriptor_t pd = nullptr;
  ASSERT_EQ(miopenCreateTensorDescriptor(&xt), miopenStatusSuccess);
  ASSERT_EQ(miopenCreateTensorDescriptor(&yt), miopenStatusSuccess);
  ASSERT_EQ(miopenCreatePoolingDescriptor(&pd), miopenStatusSuccess);
  ASSERT_EQ(miopenSet2dPoolingDescriptor(pd, miopenPoolingMax, 3, 3, 1, 1, 2, 2),
            miopenStatusSuccess);
  ASSERT_EQ(miopenSet4dTensorDescriptor(xt, miopenFloat, 2, 8, 15, 17), miopenStatusSuccess);
  int n = 0, c = 0, oh = 0, ow = 0;
  ASSERT_EQ(miopenGetPoolingForwardOutputDim(pd, xt, &n, &c, &oh, &ow), miopenStatusSuccess);
  ASSERT_EQ(miopenSet4dTensorDescriptor(yt, miopenFloat, n, c, oh, ow), miopenStatusSuccess);
  size_t ws_bytes = 0;
  ASSERT_EQ(miopenPoolingGetWorkSpaceSizeV2(pd, yt, &ws_bytes), miopenStatusSuccess);
  const TensorDescriptor xd(miopenFloat, {2, 8, 15, 17});
  const TensorDescriptor yd(miopenFloat, {static_cast<size_t>(n), static_cast<size_t>(c),
                                          static_cast<size_t>(oh), static_cast<size_t>(ow)});
  driver::HostTensor x = test::host_tensor(xd), y = test::host_tensor(yd), dy = y, dx = x;
  std::mt19937 rng(test::fresh_seed());
  x.fill_uniform(rng, -1.0, 1.0, 1.0);
  dy.fill_uniform(rng, -1.0, 1.0, 1.0);
  test::DeviceTensor xg(x), yg(y), dyg(dy), dxg(dx), ws(ws_bytes);
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenPoolingForward(h, pd, &one, xt, xg.data(), &zero, yt, yg.data(), true, ws.data(),
                                 ws_bytes),
            miopenStatusSuccess);
  ASSERT_EQ(miopenPoolingBackward(h, pd, &one, yt, yg.data(), yt, dyg.data(), xt, xg.data(), &zero,
                                  xt, dxg.data(), ws.data()),
            miopenStatusSuccess);
  yg.download(y);
  dxg.download(dx);
  const ref::PoolingRefDesc rd{
      miopenPoolingMax, {3, 3}, {1, 1}, {2, 2}, miopenPoolingWorkspaceIndexMask};
  const auto want =
      ref::pooling_forward(rd, xd.lens(), yd.lens(), x.values(), test::pool_lowest(miopenFloat));
  const auto want_dx = ref::pooling_backward(rd, xd.lens(), yd.lens(), dy.values(), want);
  for (size_t i = 0; i < want.y.size(); ++i)
    ASSERT_EQ(y.get(i), want.y[i]) << "y[" << i << "]";
  for (size_t i = 0; i < want_dx.size(); ++i)
    ASSERT_NEAR(dx.get(i), want_dx[i], 1e-5) << "dx[" << i << "]";
  miopenDestroyPoolingDescriptor(pd);
  miopenDestroyTensorDescriptor(yt);
  miopenDestroyTensorDescriptor(xt);
  miopenDestroy(h);
}

}  // namespace
}  // namespace anydnn
