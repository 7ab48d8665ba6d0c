// Every CUDA convolution solver, alone (no Find, no selection), on every problem of the shared
// list and each direction, against the double-accumulating reference with MIOpen's rms
// tolerances, one test per solver: the GPU twin of tests/unit/conv_solvers_test.cpp. It walks
// the registry, so solvers added later are tested too. Outputs are poisoned with NaN on the device
// before each run, so an element a solver forgets to write fails; deterministic solvers must give
// the same bits on a second run.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv_reference.hpp"
#include "conv_solver_promises.hpp"
#include "conv_test_util.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;
using test::DeviceTensor;

int direction_index(const ConvProblem& p) {
  return p.direction() == ConvDirection::Forward        ? 0
         : p.direction() == ConvDirection::BackwardData ? 1
                                                        : 2;
}

// The problem's tensors on the host and the device; the direction's output is `out`.
struct Buffers {
  HostTensor hx, hw, hy;
  DeviceTensor dx, dw, dy;
  HostTensor* out_host;
  DeviceTensor* out_dev;

  Buffers(const ConvProblem& p, std::mt19937& rng)
      : hx(test::host_tensor(p.x())), hw(test::host_tensor(p.w())), hy(test::host_tensor(p.y())) {
    const int d = direction_index(p);
    HostTensor* hosts[3] = {&hy, &hx, &hw};
    out_host = hosts[d];
    for (HostTensor* t : {&hx, &hw, &hy})
      if (t != out_host) test::fill_random(*t, rng);
    dx = DeviceTensor(hx);
    dw = DeviceTensor(hw);
    dy = DeviceTensor(hy);
    DeviceTensor* devs[3] = {&dy, &dx, &dw};
    out_dev = devs[d];
  }
  bool allocated() const { return dx.data() && dw.data() && dy.data(); }
};

// Runs one solver alone: poison, invoke, wait, download. False (with a failure recorded) when
// the invoker threw or the device reported an error.
bool run_solver(const ConvSolver& s, const ExecutionContext& ctx, const ConvProblem& p,
                Buffers& b) {
  const size_t ws_bytes = s.workspace_size(ctx, p);
  DeviceTensor ws(ws_bytes);
  b.out_dev->poison();
  try {
    s.make_invoker(ctx, p)(ConvBuffers{b.dx.data(), b.dw.data(), b.dy.data(),
                                       ws_bytes == 0 ? nullptr : ws.data(), ws_bytes});
  } catch (const std::exception& e) {
    ADD_FAILURE() << s.name() << " threw: " << e.what();
    return false;
  }
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    ADD_FAILURE() << s.name() << ": " << cudaGetErrorString(err);
    return false;
  }
  b.out_dev->download(*b.out_host);
  return true;
}

// Every solver of the CUDA registry by name, so --gtest_filter='*GemmFwdRest*' runs one. Without a
// device there is no registry: one placeholder test then fails on REQUIRE_GPU.
std::vector<std::string> every_cuda_solver() {
  std::vector<std::string> names;
  if (!test::gpu_present()) return {"NoCudaDevice"};
  Config cfg;
  const auto backend = make_cuda_backend(cfg, nullptr);
  for (const auto& e : backend->solvers<ConvSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

class CudaConvSolverAlone : public ::testing::TestWithParam<std::string> {};

// The solver alone on every problem and direction of the shared list that it accepts, against
// the reference; deterministic solvers give the same bits twice. It must accept every problem
// its promise covers (conv_solver_promises.hpp) and at least one.
TEST_P(CudaConvSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.conv_allow_3xtf32 = true;                    // opt-in solvers are tested alone too
  auto backend = make_cuda_backend(cfg, nullptr);  // legacy default stream: ordered with the
  const ExecutionContext ctx{cfg, *backend};       // test's cudaMemcpy / cudaMemset
  const auto* entry = backend->solvers<ConvSolver>().find(GetParam());
  ASSERT_NE(entry, nullptr);
  const ConvSolver& s = *entry->solver;
  int ran = 0, promised = 0;
  bool has_promise = false;
  for (const std::string& line : test::load_problem_lines("conv_problems.txt")) {
    ConvSpec spec;
    ASSERT_FALSE(driver::parse_conv_line(line, spec)) << line;
    const test::BuiltConv built = test::build_conv(spec);
    const ref::ConvParams params{spec.pads, spec.strides, spec.dilations, spec.groups};
    for (const ConvDirection user_dir :
         {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeights}) {
      if (spec.forw != 0 && (spec.forw & static_cast<int>(user_dir)) == 0) continue;
      const ConvProblem p(user_dir, built.x, built.w, built.conv, built.y);
      SCOPED_TRACE(p.key());
      const std::optional<bool> meant = test::solver_meant_for(s.name(), p);
      has_promise = has_promise || meant.has_value();
      if (meant.value_or(false)) ++promised;
      const Applicability a = s.applicable(ctx, p);
      if (!a) {
        EXPECT_FALSE(a.reason.empty()) << "rejects without a reason";
        EXPECT_FALSE(meant.value_or(false)) << "meant for this problem, rejects it: " << a.reason;
        continue;
      }
      Buffers b(p, rng);
      ASSERT_TRUE(b.allocated());
      const auto expected = test::conv_reference(p, params, b.hx, b.hw, b.hy);
      if (!run_solver(s, ctx, p, b)) continue;
      const double err = ref::relative_rms(expected, ref::to_logical(b.out_host->view()));
      EXPECT_LE(err, test::conv_tolerance(p));
      if (s.deterministic(p)) {
        const std::vector<uint8_t> first = b.out_host->bytes;
        if (run_solver(s, ctx, p, b))
          EXPECT_TRUE(first == b.out_host->bytes) << "not deterministic";
      }
      ++ran;
    }
  }
  EXPECT_GT(ran, 0) << GetParam() << " takes no problem of the shared list";
  if (has_promise)
    EXPECT_GT(promised, 0) << "no problem of the list is one " << GetParam() << " is meant for";
}

// With TF32 allowed (ANYDNN_CONV_ALLOW_TF32=1) fp32 problems may run on TF32 tensor cores: the
// cuBLAS GEMM solvers ask for CUBLAS_COMPUTE_32F_FAST_TF32 and the CUTLASS ones accept float. The
// solver alone on every fp32 problem of the list it takes, against the reference with TF32's
// tolerance: 10 explicit mantissa bits round each input by <= 2^-11 relative, so sums of random-
// sign products are off by ~4e-4 of their rms (2e-3 leaves room, far below one wrong element).
TEST_P(CudaConvSolverAlone, MatchesReferenceWithTf32Allowed) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.conv_allow_tf32 = true;
  cfg.conv_allow_3xtf32 = true;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const auto* entry = backend->solvers<ConvSolver>().find(GetParam());
  ASSERT_NE(entry, nullptr);
  const ConvSolver& s = *entry->solver;
  int ran = 0;
  for (const std::string& line : test::load_problem_lines("conv_problems.txt")) {
    ConvSpec spec;
    ASSERT_FALSE(driver::parse_conv_line(line, spec)) << line;
    const test::BuiltConv built = test::build_conv(spec);
    if (built.x.type() != miopenFloat) continue;
    const ref::ConvParams params{spec.pads, spec.strides, spec.dilations, spec.groups};
    for (const ConvDirection user_dir :
         {ConvDirection::Forward, ConvDirection::BackwardData, ConvDirection::BackwardWeights}) {
      if (spec.forw != 0 && (spec.forw & static_cast<int>(user_dir)) == 0) continue;
      const ConvProblem p(user_dir, built.x, built.w, built.conv, built.y);
      SCOPED_TRACE(p.key());
      if (!s.applicable(ctx, p)) continue;
      Buffers b(p, rng);
      ASSERT_TRUE(b.allocated());
      const auto expected = test::conv_reference(p, params, b.hx, b.hw, b.hy);
      if (!run_solver(s, ctx, p, b)) continue;
      const double err = ref::relative_rms(expected, ref::to_logical(b.out_host->view()));
      EXPECT_LE(err, test::direction_tolerance(p, 2e-3));
      ++ran;
    }
  }
  // wgmma's TF32 wants K-major operands: the sm90 backward kernels take no fp32 at all.
  if (GetParam().rfind("ImplicitGemmWgmmaBwd", 0) == 0 ||
      GetParam().rfind("ImplicitGemmWgmmaWrw", 0) == 0)
    EXPECT_EQ(ran, 0) << GetParam() << " took an fp32 problem";
  else
    EXPECT_GT(ran, 0) << GetParam() << " takes no fp32 problem of the shared list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, CudaConvSolverAlone, ::testing::ValuesIn(every_cuda_solver()),
                         [](const auto& info) { return info.param; });

// Runs the named solver on a problem of explicit descriptors against the reference.
void expect_solver_matches(const char* name, ConvDirection dir, const TensorDescriptor& x,
                           const TensorDescriptor& w, const ConvolutionDescriptor& conv,
                           const TensorDescriptor& y, const ref::ConvParams& params) {
  SCOPED_TRACE(name);
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const ConvProblem p(dir, x, w, conv, y);
  const auto* e = backend->solvers<ConvSolver>().find(name);
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->solver->applicable(ctx, p)) << e->solver->applicable(ctx, p).reason;
  Buffers b(p, rng);
  ASSERT_TRUE(b.allocated());
  const auto expected = test::conv_reference(p, params, b.hx, b.hw, b.hy);
  ASSERT_TRUE(run_solver(*e->solver, ctx, p, b));
  EXPECT_LE(ref::relative_rms(expected, ref::to_logical(b.out_host->view())),
            test::conv_tolerance(p));
}

// Non-packed strides: the GEMM solvers and the tiled kernel say no, the naive ones read and
// write through the strides (and leave the gaps alone: the reference only reads logical
// elements, but a write into a gap would land on another element's slot in a packed view).
TEST(CudaConvSolvers, NaiveSolversHandlePaddedStrides) {
  REQUIRE_GPU();
  // x is a 2x3x6x7 window of a 2x5x9x10 allocation; y rows are padded to 8; w is NHWC.
  const TensorDescriptor x(miopenFloat, {2, 3, 6, 7}, {450, 90, 10, 1});
  const TensorDescriptor w = TensorDescriptor::with_layout(miopenFloat, "NHWC", {4, 3, 3, 3});
  const ConvolutionDescriptor conv(miopenConvolution, {1, 1}, {1, 1}, {1, 1});
  const TensorDescriptor y(miopenFloat, {2, 4, 6, 7}, {4 * 6 * 8, 6 * 8, 8, 1});
  const ref::ConvParams params{{1, 1}, {1, 1}, {1, 1}, 1};
  {
    Config cfg;
    auto backend = make_cuda_backend(cfg, nullptr);
    const ExecutionContext ctx{cfg, *backend};
    const ConvProblem p(ConvDirection::Forward, x, w, conv, y);
    for (const char* name : {"GemmFwdRest", "ConvDirectFwdCuda"}) {
      const auto* e = backend->solvers<ConvSolver>().find(name);
      ASSERT_NE(e, nullptr);
      const Applicability a = e->solver->applicable(ctx, p);
      EXPECT_FALSE(a) << name;
      EXPECT_FALSE(a.reason.empty()) << name;
    }
  }
  expect_solver_matches("ConvDirectNaiveConvFwd", ConvDirection::Forward, x, w, conv, y, params);
  expect_solver_matches("ConvDirectNaiveConvBwd", ConvDirection::BackwardData, x, w, conv, y,
                        params);
  expect_solver_matches("ConvDirectNaiveConvWrw", ConvDirection::BackwardWeights, x, w, conv, y,
                        params);
}

// int8 forward (MIOpen's convint8): int32 accumulation, int32 or float output, exact.
TEST(CudaConvSolvers, NaiveForwardInt8IsExact) {
  REQUIRE_GPU();
  for (const miopenDataType_t out_type : {miopenInt32, miopenFloat}) {
    SCOPED_TRACE(out_type);
    const unsigned seed = test::fresh_seed();
    SCOPED_TRACE(test::seed_trace(seed));
    std::mt19937 rng(seed);
    const TensorDescriptor x(miopenInt8, {2, 6, 9, 8});
    const TensorDescriptor w(miopenInt8, {4, 3, 3, 3});
    ConvolutionDescriptor conv(miopenConvolution, {1, 1}, {2, 1}, {1, 1});
    conv.set_group_count(2);
    const TensorDescriptor y(out_type, conv.forward_output_lens(x, w));
    Config cfg;
    auto backend = make_cuda_backend(cfg, nullptr);
    const ExecutionContext ctx{cfg, *backend};
    const ConvProblem p(ConvDirection::Forward, x, w, conv, y);
    HostTensor hx = test::host_tensor(x), hw = test::host_tensor(w), hy = test::host_tensor(y);
    hx.fill_uniform(rng, -100.0, 100.0, 1.0);
    hw.fill_uniform(rng, -100.0, 100.0, 1.0);
    const auto expected =
        ref::conv_forward(hx.view(), hw.view(), {{1, 1}, {2, 1}, {1, 1}, 2}, y.lens());
    DeviceTensor dx(hx), dw(hw), dy(hy);
    const auto* e = backend->solvers<ConvSolver>().find("ConvDirectNaiveConvFwd");
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->solver->applicable(ctx, p));
    for (const auto& other : backend->solvers<ConvSolver>().entries())
      if (other.solver.get() != e->solver.get() && other.solver->applicable(ctx, p))
        ADD_FAILURE() << other.solver->name() << " claims an int8 problem";
    dy.poison();
    e->solver->make_invoker(ctx, p)(ConvBuffers{dx.data(), dw.data(), dy.data(), nullptr, 0});
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    dy.download(hy);
    EXPECT_EQ(ref::to_logical(hy.view()), expected);
  }
}

// The tiled direct kernel on shapes that cross its tile edges (several column and row tiles,
// output channels not a multiple of 8, channel chunks with a remainder) and on a large stride
// with dilation, where the staged patch is big and the kernel stages fewer channels per round.
TEST(CudaConvSolvers, DirectFwdTileEdges) {
  REQUIRE_GPU();
  struct Case {
    std::vector<size_t> x, w;
    int pad, stride, dil, groups;
  };
  const Case cases[] = {{{2, 19, 37, 150}, {13, 19, 3, 3}, 1, 1, 1, 1},
                        {{1, 12, 40, 70}, {21, 4, 5, 5}, 2, 2, 1, 3},
                        {{1, 9, 33, 300}, {10, 9, 3, 7}, 3, 4, 3, 1},
                        {{3, 2, 5, 5}, {1, 2, 5, 5}, 0, 1, 1, 1}};
  for (const Case& c : cases) {
    const TensorDescriptor x(miopenFloat, c.x), w(miopenFloat, c.w);
    ConvolutionDescriptor conv(miopenConvolution, {c.pad, c.pad}, {c.stride, c.stride},
                               {c.dil, c.dil});
    conv.set_group_count(c.groups);
    const TensorDescriptor y(miopenFloat, conv.forward_output_lens(x, w));
    expect_solver_matches("ConvDirectFwdCuda", ConvDirection::Forward, x, w, conv, y,
                          {{c.pad, c.pad}, {c.stride, c.stride}, {c.dil, c.dil}, c.groups});
  }
}

}  // namespace
}  // namespace anydnn
