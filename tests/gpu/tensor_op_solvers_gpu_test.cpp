// Every CUDA tensor-op solver, alone, on every problem of tests/problems/tensorop_problems.txt it
// declares applicable (one test each, named <solver>_<index>_<problem>), on device buffers:
// inputs drawn fresh, the output poisoned on the device (or the drawn prior when beta reads
// it), compared with the double reference with the CPU test's tolerances, bytes between the
// output's elements untouched, and a rerun from the same prior giving identical bytes. Then the
// four C calls on a CUDA handle with device pointers.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "core/config.hpp"
#include "gpu/gpu_test_util.hpp"
#include "solver/registry.hpp"
#include "tensor_op_test_util.hpp"
#include "tensor_ops/tensor_op_solver.hpp"

namespace anydnn {
namespace {

using test::DeviceTensor;
using test::TensorOpCase;

using test::GpuBackend;

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

std::vector<Param> params() {
  if (!test::gpu_present()) return {{"NoCudaDevice", 0, "none"}};
  GpuBackend g;
  const auto all = cases();
  std::vector<Param> out;
  for (const auto& e : g.backend->solvers<TensorOpSolver>().entries())
    for (size_t i = 0; i < all.size(); ++i)
      if (e.solver->applicable(g.ctx(), test::make_problem(all[i])))
        out.push_back({std::string(e.solver->name()), i, all[i].name});
  return out;
}

class TensorOpSolverGpu : public ::testing::TestWithParam<Param> {};

TEST_P(TensorOpSolverGpu, MatchesReferenceAndRepeats) {
  REQUIRE_GPU();
  const Param& prm = GetParam();
  const TensorOpCase k = cases()[prm.index];
  SCOPED_TRACE(k.line);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const TensorOpProblem p = test::make_problem(k);
  const auto* e = g.backend->solvers<TensorOpSolver>().find(prm.solver);
  ASSERT_NE(e, nullptr);
  test::TensorOpData d = test::draw(k, rng);
  const auto want = test::expected(k, d);
  if (p.zero_output_first())  // the front-end's SetTensor(0), done on the host here
    std::fill(d.c.bytes.begin(), d.c.bytes.end(), 0);
  DeviceTensor a(d.a), b(d.b), c(d.c);
  ASSERT_NE(c.data(), nullptr);
  driver::HostTensor got = d.c, again = d.c;
  e->solver->run(ctx, p.plan(), {a.data(), b.data(), c.data()});
  c.download(got);
  test::expect_output(k, want, d.c, got);
  c.upload(d.c);
  e->solver->run(ctx, p.plan(), {a.data(), b.data(), c.data()});
  c.download(again);
  EXPECT_EQ(got.bytes, again.bytes) << "a rerun gave different bytes";
}

INSTANTIATE_TEST_SUITE_P(List, TensorOpSolverGpu, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return i.param.solver + "_" + std::to_string(i.param.index) + "_" +
                                  i.param.name;
                         });

// The C API on a CUDA handle: a per-channel add with beta, a fill, a scale and an NCHW -> NHWC
// transform, all on device memory.
TEST(TensorOpApiGpu, FourCallsOnDeviceMemory) {
  REQUIRE_GPU();
  miopenHandle_t h = nullptr;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenTensorDescriptor_t cd, bd, nhwc;
  miopenCreateTensorDescriptor(&cd);
  miopenCreateTensorDescriptor(&bd);
  miopenCreateTensorDescriptor(&nhwc);
  const int lens[] = {2, 3, 4, 5};
  ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(cd, miopenFloat, miopenTensorNCHW, lens, 4),
            miopenStatusSuccess);
  ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(nhwc, miopenFloat, miopenTensorNHWC, lens, 4),
            miopenStatusSuccess);
  ASSERT_EQ(miopenSet4dTensorDescriptor(bd, miopenFloat, 1, 3, 1, 1), miopenStatusSuccess);
  const size_t n = 120;
  std::vector<float> ha(n), hb = {1.0f, 2.0f, 3.0f}, hc(n, 1.0f), out(n);
  for (size_t i = 0; i < n; ++i)
    ha[i] = static_cast<float>(i);
  float *a, *b, *c, *y;
  cudaMalloc(&a, n * 4);
  cudaMalloc(&b, 12);
  cudaMalloc(&c, n * 4);
  cudaMalloc(&y, n * 4);
  cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), 12, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc.data(), n * 4, cudaMemcpyHostToDevice);
  const float one = 1.0f, two = 2.0f, half = 0.5f, zero = 0.0f;
  // c = a + 2 b[c] + 0.5 c
  ASSERT_EQ(miopenOpTensor(h, miopenTensorOpAdd, &one, cd, a, &two, bd, b, &half, cd, c),
            miopenStatusSuccess);
  cudaMemcpy(out.data(), c, n * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(out[i], ha[i] + 2.0f * hb[(i / 20) % 3] + 0.5f) << i;
  ASSERT_EQ(miopenTransformTensor(h, &one, cd, a, &zero, nhwc, y), miopenStatusSuccess);
  cudaMemcpy(out.data(), y, n * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < n; ++i) {  // y[n][h][w][c] = a[n][c][h][w]
    const size_t ch = i % 3, w = (i / 3) % 5, hh = (i / 15) % 4, nn = i / 60;
    EXPECT_EQ(out[i], ha[((nn * 3 + ch) * 4 + hh) * 5 + w]) << i;
  }
  ASSERT_EQ(miopenSetTensor(h, cd, y, &two), miopenStatusSuccess);
  ASSERT_EQ(miopenScaleTensor(h, cd, y, &half), miopenStatusSuccess);
  cudaMemcpy(out.data(), y, n * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(out[i], 1.0f) << i;
  for (float* p : {a, b, c, y})
    cudaFree(p);
  for (auto d : {cd, bd, nhwc})
    miopenDestroyTensorDescriptor(d);
  miopenDestroy(h);
}

}  // namespace
}  // namespace anydnn
