// The 3xTF32 CUTLASS solvers (ImplicitGemm3xTf32{Fwd,Bwd,Wrw}): fp32 near fp32 accuracy on
// tensor cores. They could be the default fp32 path only if they were as accurate as fp32 math on
// CUDA cores, so that is what is measured: on the same random inputs, each 3xTF32 solver and the
// SIMT fp32 solver of its direction (cuBLAS SGEMM with CUBLAS_COMPUTE_32F: GemmFwdRest,
// GemmBwdRest, GemmWrwUniversal) run against the double reference, over every fp32 line of the
// shared list the solver takes, plus NHWC ones (aligned in place, and padded) and ResNet-like
// layers with long reductions (576-4608 terms). On an H100 (2026-12-07) the 3xTF32 error summed
// over the problems was 1.6x (forward), 2.2x (backward data) and 2.0x (backward weights) the
// SGEMM one; every problem stayed 10x inside MIOpen's fp32 tolerance. So they are opt-in
// (ANYDNN_CONV_3XTF32=1), and the tests hold both facts: with the switch, each problem within
// MIOpen's tolerance and the summed error within 3x SGEMM's (a regression bound over the measured
// 1.6-2.2x); without it, strict fp32 never reaches them. Should a kernel ever match SGEMM's
// error (ratio <= 1), it may become the default. The per-solver test on the whole list
// (CudaConvSolverAlone, with its promises) runs them too, switch on.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv_reference.hpp"
#include "conv_test_util.hpp"
#include "core/config.hpp"
#include "core/conv_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;

#if ANYDNN_HAVE_CUTLASS

constexpr ConvDirection kDirections[] = {ConvDirection::Forward, ConvDirection::BackwardData,
                                         ConvDirection::BackwardWeights};

const char* solver_3x(ConvDirection d) {
  return d == ConvDirection::Forward        ? "ImplicitGemm3xTf32Fwd"
         : d == ConvDirection::BackwardData ? "ImplicitGemm3xTf32Bwd"
                                            : "ImplicitGemm3xTf32Wrw";
}
// cuBLAS SGEMM on CUDA cores (TF32 off in the config below): fp32 math as cuDNN's strict mode.
const char* solver_simt(ConvDirection d) {
  return d == ConvDirection::Forward        ? "GemmFwdRest"
         : d == ConvDirection::BackwardData ? "GemmBwdRest"
                                            : "GemmWrwUniversal";
}

// Extra problems beyond the shared list: NHWC (aligned: in place; C = 6: padded), and layers
// with ResNet-50's reduction lengths (3x3 x 64 = 576 ... 3x3 x 512 = 4608 terms) at small
// batch, so the double reference stays quick.
const char* const kExtraLines[] = {
    "conv -n 2 -c 32 -H 16 -W 16 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 0 --in_layout NHWC "
    "--fil_layout NHWC --out_layout NHWC",
    "conv -n 2 -c 6 -H 11 -W 9 -k 12 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NHWC --fil_layout NHWC "
    "--out_layout NHWC",
    "conv -n 2 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -F 0",
    "conv -n 2 -c 256 -H 14 -W 14 -k 64 -y 1 -x 1 -F 0",
    "conv -n 1 -c 512 -H 7 -W 7 -k 512 -y 3 -x 3 -p 1 -q 1 -F 0",
    "conv -n 2 -c 3 -H 32 -W 32 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -F 0",
};

std::vector<std::string> problem_lines() {
  std::vector<std::string> lines = test::load_problem_lines("conv_problems.txt");
  lines.insert(lines.end(), std::begin(kExtraLines), std::end(kExtraLines));
  return lines;
}

// One solver alone on device buffers: poisoned output and workspace, then its error against the
// double reference. Negative when it failed to run (a failure is recorded).
double run_error(const ExecutionContext& ctx, const ConvSolver& s, const ConvProblem& p,
                 const std::vector<double>& expected, HostTensor& x, HostTensor& w, HostTensor& y) {
  const ConvDirection dir = p.direction();
  HostTensor* out = dir == ConvDirection::Forward        ? &y
                    : dir == ConvDirection::BackwardData ? &x
                                                         : &w;
  test::DeviceTensor dx(x), dw(w), dy(y);
  test::DeviceTensor* dout = out == &x ? &dx : out == &w ? &dw : &dy;
  dout->poison();
  const size_t ws_size = s.workspace_size(ctx, p);
  test::DeviceTensor ws(ws_size);
  ws.poison();
  try {
    s.make_invoker(ctx, p)(
        ConvBuffers{dx.data(), dw.data(), dy.data(), ws_size == 0 ? nullptr : ws.data(), ws_size});
  } catch (const std::exception& e) {
    ADD_FAILURE() << s.name() << " threw: " << e.what();
    return -1;
  }
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    ADD_FAILURE() << s.name() << ": " << cudaGetErrorString(err);
    return -1;
  }
  dout->download(*out);
  return ref::relative_rms(expected, ref::to_logical(out->view()));
}

class ImplicitGemm3xTf32 : public ::testing::TestWithParam<ConvDirection> {};

TEST_P(ImplicitGemm3xTf32, ErrorWithin3xOfFp32OnCudaCores) {
  REQUIRE_GPU();
  const ConvDirection dir = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;  // TF32 not allowed: strict fp32, the 3xTF32 solvers allowed
  cfg.conv_allow_3xtf32 = true;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const auto* e3 = backend->solvers<ConvSolver>().find(solver_3x(dir));
  const auto* es = backend->solvers<ConvSolver>().find(solver_simt(dir));
  ASSERT_NE(e3, nullptr);
  ASSERT_NE(es, nullptr);
  double sum3 = 0, sums = 0;
  int compared = 0;
  for (const std::string& line : problem_lines()) {
    ConvSpec spec;
    ASSERT_FALSE(driver::parse_conv_line(line, spec)) << line;
    const test::BuiltConv b = test::build_conv(spec);
    if (b.x.type() != miopenFloat) continue;
    if (spec.forw != 0 && (spec.forw & static_cast<int>(dir)) == 0) continue;
    const ConvProblem p(dir, b.x, b.w, b.conv, b.y);
    SCOPED_TRACE(line);
    if (!e3->solver->applicable(ctx, p)) continue;
    HostTensor x = test::host_tensor(p.x()), w = test::host_tensor(p.w()),
               y = test::host_tensor(p.y());
    for (HostTensor* t : {&x, &w, &y})
      test::fill_random(*t, rng);
    const auto expected = test::conv_reference(p, test::conv_params(spec), x, w, y);
    const double err3 = run_error(ctx, *e3->solver, p, expected, x, w, y);
    EXPECT_GE(err3, 0);
    EXPECT_LE(err3, test::conv_tolerance(p)) << solver_3x(dir);
    // The SIMT solver takes packed NCHW only; NHWC rows check the tolerance alone.
    if (!es->solver->applicable(ctx, p)) continue;
    const double errs = run_error(ctx, *es->solver, p, expected, x, w, y);
    EXPECT_GE(errs, 0);
    std::printf("  %-22s %.3e  %-18s %.3e  %s\n", solver_3x(dir), err3, solver_simt(dir), errs,
                line.c_str());
    sum3 += err3;
    sums += errs;
    ++compared;
  }
  ASSERT_GT(compared, 5) << "too few problems compared";
  std::printf("  summed relative rms over %d problems: %s %.3e, %s %.3e (ratio %.2f)\n", compared,
              solver_3x(dir), sum3, solver_simt(dir), sums, sum3 / sums);
  // Measured 1.6-2.2x: why the solvers are opt-in. Past 3x, the kernel itself got worse.
  EXPECT_LE(sum3, 3.0 * sums) << solver_3x(dir) << " lost accuracy against fp32 on CUDA cores";
}

INSTANTIATE_TEST_SUITE_P(Directions, ImplicitGemm3xTf32, ::testing::ValuesIn(kDirections),
                         [](const auto& info) { return std::string(solver_3x(info.param)); });

// With ANYDNN_CONV_3XTF32=1 strict fp32 (TF32 not allowed) goes to the 3xTF32 kernels: they come
// first among the applicable solvers of their direction and turn down 16-bit types with a
// reason. Without it they take nothing, and say why.
TEST(ImplicitGemm3xTf32Registry, OptInFirstForStrictFp32AndFp32Only) {
  REQUIRE_GPU();
  Config cfg;
  cfg.conv_allow_3xtf32 = true;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const Config off;
  const ExecutionContext ctx_off{off, *backend};
  for (const ConvDirection dir : kDirections) {
    ConvSpec spec;
    ASSERT_FALSE(
        driver::parse_conv_line("conv -n 2 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1", spec));
    const test::BuiltConv b = test::build_conv(spec);
    const ConvProblem p(dir, b.x, b.w, b.conv, b.y);
    for (const auto& e : backend->solvers<ConvSolver>().entries()) {
      if (!e.solver->applicable(ctx, p)) continue;
      EXPECT_EQ(e.solver->name(), solver_3x(dir));
      break;
    }
    const Applicability not_allowed =
        backend->solvers<ConvSolver>().find(solver_3x(dir))->solver->applicable(ctx_off, p);
    EXPECT_FALSE(not_allowed);
    EXPECT_NE(not_allowed.reason.find("ANYDNN_CONV_3XTF32=1"), std::string::npos)
        << not_allowed.reason;
    ConvSpec half;
    ASSERT_FALSE(
        driver::parse_conv_line("convfp16 -n 2 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1", half));
    const test::BuiltConv bh = test::build_conv(half);
    const ConvProblem ph(dir, bh.x, bh.w, bh.conv, bh.y);
    const Applicability a =
        backend->solvers<ConvSolver>().find(solver_3x(dir))->solver->applicable(ctx, ph);
    EXPECT_FALSE(a);
    EXPECT_EQ(a.reason, "data type is not fp32 (the 3xTF32 kernel)");
  }
}

#else

TEST(ImplicitGemm3xTf32, NotBuilt) {
  GTEST_SKIP() << "built without the CUTLASS headers (pip install nvidia-cutlass)";
}

#endif

}  // namespace
}  // namespace anydnn
