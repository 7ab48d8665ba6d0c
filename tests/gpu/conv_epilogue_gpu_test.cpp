// The fused epilogue of every CUDA forward solver that takes one (activation/fused_epilogue.hpp),
// each solver alone (no Find, no fusion front-end): on every forward problem of the shared list
// (tests/problems/conv_problems.txt) plus the layouts that pick the tensor-core solver's other
// epilogue paths, with the epilogue shapes and activations of the CPU twin
// (unit/conv_epilogue_test.cpp, fusion_test_cases.hpp), on device memory with the output
// poisoned (NaN), against the double reference (the convolution, then the epilogue in double)
// with MIOpen's fusion tolerance. One test per solver and math mode, named after the solver
// (--gtest_filter='*GemmFwdRest*'). Also the GPU twin of the CPU's bit-identity check: conv +
// bias as an epilogue gives the bits of the plain solver followed by the bias call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "common_test_util.hpp"
#include "conv/conv_kernels.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv_reference.hpp"
#include "conv_test_util.hpp"
#include "fusion_test_cases.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::ConvSpec;
using driver::HostTensor;
using test::DeviceTensor;

// The solvers that implement the epilogue; each must run at least one case of the lists.
const std::vector<std::string> kFusedSolvers = {"ImplicitGemmTensorCoreFwd", "GemmFwd1x1_0_1",
                                                "GemmFwdRest", "ConvDirectFwdCuda"};

// Beyond the shared list, the outputs that send the tensor-core solver down each of its paths
// (implicit_gemm_tc_epilogue.hpp): NHWC with whole vectors of channels (CUTLASS's epilogue on
// the caller's y, with z as CUTLASS's source) in fp32 / fp16 / bf16, NHWC with padded channels
// (fp16: CUTLASS's epilogue on the padded copy; fp32: the copy back), NCHW (fp32: the copy
// back; 16-bit: CUTLASS's epilogue on the staged copy), and ResNet-like channel counts.
const std::vector<std::string> kEpilogueLines = {
    "conv -n 2 -c 8 -H 9 -W 7 -k 12 -y 3 -x 3 -p 1 -q 1 -F 1 --in_layout NHWC --fil_layout NHWC "
    "--out_layout NHWC",
    "convfp16 -n 2 -c 16 -H 9 -W 7 -k 24 -y 3 -x 3 -p 1 -q 1 -u 2 -v 1 -F 1 --in_layout NHWC "
    "--fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 3 -c 8 -H 6 -W 10 -k 16 -y 1 -x 1 -F 1 --in_layout NHWC --fil_layout NHWC "
    "--out_layout NHWC",
    "convfp16 -n 2 -c 8 -H 7 -W 9 -k 10 -y 3 -x 3 -p 1 -q 1 -F 1 --in_layout NHWC --fil_layout "
    "NHWC --out_layout NHWC",
    "conv -n 2 -c 5 -H 8 -W 9 -k 7 -y 3 -x 3 -p 1 -q 1 -F 1 --in_layout NHWC --fil_layout NHWC "
    "--out_layout NHWC",
    "convfp16 -n 2 -c 64 -H 14 -W 14 -k 136 -y 3 -x 3 -p 1 -q 1 -F 1 --in_layout NHWC "
    "--fil_layout NHWC --out_layout NHWC",
    "conv -n 2 -c 64 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 1",
    "conv -n 2 -c 32 -H 7 -W 7 -k 64 -y 1 -x 1 -F 1",
};

// The forward problems: the shared list, then the lines above.
std::vector<std::pair<ConvSpec, ConvProblem>> forward_problems() {
  std::vector<std::string> lines = test::load_problem_lines("conv_problems.txt");
  lines.insert(lines.end(), kEpilogueLines.begin(), kEpilogueLines.end());
  std::vector<std::pair<ConvSpec, ConvProblem>> out;
  for (const std::string& line : lines) {
    ConvSpec spec;
    EXPECT_FALSE(driver::parse_conv_line(line, spec)) << line;
    if (spec.forw != 0 && (spec.forw & 1) == 0) continue;
    const test::BuiltConv b = test::build_conv(spec);
    const ConvProblem p(ConvDirection::Forward, b.x, b.w, b.conv, b.y);
    if (p.direction() != ConvDirection::Forward) continue;  // transposed: backward data
    out.emplace_back(spec, p);
  }
  return out;
}

// Epilogue shapes {scale, shift, residual} (the CPU twin's, plus z + bias without alpha1).
constexpr ConvEpilogueNeeds kShapes[] = {
    {false, true, false},   // conv + bias
    {true, true, false},    // conv (+ bias) + BN inference folded
    {false, false, false},  // activation only
    {true, true, true},     // alpha1 * conv + alpha2 * z + bias (the one-call API)
    {false, true, true},    // conv + alpha2 * z + bias
};

std::vector<double> values(const HostTensor& t) {
  return ref::to_logical(t.view());
}

DeviceTensor floats_on_device(const std::vector<float>& v) {
  DeviceTensor d(std::max<size_t>(1, v.size()) * sizeof(float));
  cudaMemcpy(d.data(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice);
  return d;
}

// One problem's inputs on the host and the device, and its reference convolution.
struct ProblemData {
  HostTensor hx, hw, hy, hz;
  DeviceTensor dx, dw, dy, dz, dscale, dshift;
  std::vector<float> scale, shift;
  std::vector<double> conv;
};

void make_data(const ConvSpec& spec, const ConvProblem& p, std::mt19937& rng, ProblemData& d) {
  d.hx = test::host_tensor(p.x());
  d.hw = test::host_tensor(p.w());
  d.hy = test::host_tensor(p.y());
  d.hz = test::host_tensor(p.y());
  test::fill_random(d.hx, rng);
  // Weights scaled by the fan-in: the convolution, the activation's input, stays O(1), so a
  // compressing activation (TANH, LOGISTIC) does not blow the convolution's error up against
  // its smaller output range (the TF32 tolerance has less room than the fp32 one).
  const double fan_in = static_cast<double>(p.w().element_count() / p.out_channels());
  const double a = std::sqrt(3.0 / std::max(fan_in, 1.0));
  d.hw.fill_uniform(rng, -a, a, 1.0);
  test::fill_random(d.hz, rng);
  const size_t k = p.out_channels();
  d.scale = test::random_floats(rng, k, 0.5f, 1.5f);
  d.shift = test::random_floats(rng, k, -0.5f, 0.5f);
  d.conv = test::conv_reference(p, test::conv_params(spec), d.hx, d.hw, d.hy);
  d.dx = DeviceTensor(d.hx);
  d.dw = DeviceTensor(d.hw);
  d.dy = DeviceTensor(d.hy.bytes.size());
  d.dz = DeviceTensor(d.hz);
  d.dscale = floats_on_device(d.scale);
  d.dshift = floats_on_device(d.shift);
}

struct Outcome {
  int ran = 0;  // fused cases the solver took and ran
};

// The solver alone on one problem with one epilogue; false (a failure recorded) when it threw or
// the device faulted.
bool run_fused(const ConvSolver& s, const ExecutionContext& ctx, const ConvProblem& p,
               ProblemData& d, const ConvEpilogue* ep) {
  const size_t ws_bytes = s.workspace_size(ctx, p);
  DeviceTensor ws(ws_bytes);
  d.dy.poison();
  ConvBuffers b{d.dx.data(), d.dw.data(), d.dy.data(), ws_bytes ? ws.data() : nullptr, ws_bytes};
  b.epilogue = ep;
  try {
    s.make_invoker(ctx, p)(b);
  } catch (const std::exception& e) {
    ADD_FAILURE() << s.name() << " threw: " << e.what();
    return false;
  }
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    ADD_FAILURE() << s.name() << ": " << cudaGetErrorString(err);
    return false;
  }
  d.dy.download(d.hy);
  return true;
}

// Every problem of the lists and every shape and mode the named solver takes, under `cfg`:
// every mode with the first two shapes, one mode per problem (in turn) with the others.
Outcome run_solver(const std::string& name, const Config& cfg, double fp32_tol, std::mt19937& rng) {
  Outcome out;
  auto backend = make_cuda_backend(cfg, nullptr);  // legacy default stream: ordered with the
  const ExecutionContext ctx{cfg, *backend};       // test's cudaMemcpy / cudaMemset
  const ConvSolverEntry* entry = backend->solvers<ConvSolver>().find(name);
  EXPECT_NE(entry, nullptr) << name;
  if (entry == nullptr) return out;
  const ConvSolver& s = *entry->solver;
  const auto modes = test::every_activation();
  size_t turn = 0;
  for (const auto& [spec, p] : forward_problems()) {
    if (!s.applicable(ctx, p)) continue;
    SCOPED_TRACE(p.key());
    ProblemData d;
    make_data(spec, p, rng, d);
    if (!d.dx.data() || !d.dw.data() || !d.dy.data() || !d.dz.data()) {
      ADD_FAILURE() << "cudaMalloc failed";
      return out;
    }
    const double tol =
        p.data_type() == miopenFloat ? fp32_tol : test::fusion_tolerance(p.data_type());
    const size_t spatial = d.conv.size() / (p.batch() * p.out_channels());
    for (const ConvEpilogueNeeds& shape : kShapes) {
      const Applicability a = s.epilogue_support(ctx, p, shape);
      if (!a) {
        EXPECT_FALSE(a.reason.empty()) << "declines without a reason";
        continue;
      }
      for (size_t mi = 0; mi < modes.size(); ++mi) {
        if ((shape.residual || !shape.shift) && mi != turn % modes.size()) continue;
        const ref::ActivationDesc& act = modes[mi];
        SCOPED_TRACE(testing::Message()
                     << "scale " << shape.scale << " shift " << shape.shift << " residual "
                     << shape.residual << " mode " << static_cast<int>(act.mode));
        ConvEpilogue ep;
        ep.scale = shape.scale ? static_cast<const float*>(d.dscale.data()) : nullptr;
        ep.shift = shape.shift ? static_cast<const float*>(d.dshift.data()) : nullptr;
        ep.residual = shape.residual ? d.dz.data() : nullptr;
        ep.residual_alpha = 0.75f;
        ep.activation = test::fused(act, p.y().type());
        if (!run_fused(s, ctx, p, d, &ep)) return out;
        const std::vector<double> sd(d.scale.begin(), d.scale.end());
        const std::vector<double> td(d.shift.begin(), d.shift.end());
        const auto want = test::epilogue_reference(
            d.conv, p.out_channels(), spatial, shape.scale ? sd : std::vector<double>{},
            shape.shift ? td : std::vector<double>{},
            shape.residual ? values(d.hz) : std::vector<double>{}, 0.75, act);
        EXPECT_LE(test::epilogue_error(want, values(d.hy), d.conv), tol);
        ++out.ran;
      }
    }
    ++turn;
  }
  return out;
}

class CudaConvEpilogue : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaConvEpilogue, MatchesReferenceOnEveryChainItTakes) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  const Outcome o = run_solver(GetParam(), cfg, test::fusion_tolerance(miopenFloat), rng);
  // Strict fp32: the tensor-core solver takes only 16-bit problems.
  EXPECT_GT(o.ran, 0) << GetParam() << " ran no fused case";
}

// With TF32 allowed the tensor-core solver also takes fp32 (CUTLASS's epilogue for NHWC with
// whole vectors, the copy back otherwise), and the cuBLAS solvers run on TF32: its tolerance
// (conv_solvers_gpu_test.cpp explains 2e-3).
TEST_P(CudaConvEpilogue, MatchesReferenceWithTf32Allowed) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.conv_allow_tf32 = true;
  const Outcome o = run_solver(GetParam(), cfg, 2e-3, rng);
  EXPECT_GT(o.ran, 0) << GetParam() << " ran no fused case";
}

INSTANTIATE_TEST_SUITE_P(Solvers, CudaConvEpilogue, ::testing::ValuesIn(kFusedSolvers),
                         [](const auto& info) { return info.param; });

// conv + bias as an epilogue gives the bits of the solver's plain output followed by the bias
// call: on fp32 data every path (register store, cuBLAS pass, CUTLASS's epilogue, the copy back)
// adds the same fp32 shift to the same fp32 sum.
TEST(CudaConvEpilogueBits, BiasShiftIsBitIdenticalToTheSeparateBiasCall) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  int ran = 0;
  for (const bool tf32 : {false, true}) {
    Config cfg;
    cfg.conv_allow_tf32 = tf32;
    auto backend = make_cuda_backend(cfg, nullptr);
    const ExecutionContext ctx{cfg, *backend};
    for (const auto& [spec, p] : forward_problems()) {
      if (p.data_type() != miopenFloat) continue;
      const size_t k = p.out_channels();
      const TensorDescriptor bias_desc(miopenFloat, p.y().num_dims() == 5
                                                        ? std::vector<size_t>{1, k, 1, 1, 1}
                                                        : std::vector<size_t>{1, k, 1, 1});
      for (const std::string& name : kFusedSolvers) {
        const ConvSolverEntry* e = backend->solvers<ConvSolver>().find(name);
        if (e == nullptr) continue;
        const ConvSolver& s = *e->solver;
        if (!s.applicable(ctx, p) || !s.epilogue_support(ctx, p, {false, true, false})) continue;
        SCOPED_TRACE(name + " " + p.key() + (tf32 ? " TF32" : ""));
        ProblemData d;
        make_data(spec, p, rng, d);
        ASSERT_TRUE(run_fused(s, ctx, p, d, nullptr));
        backend->kernels<const ConvKernels>().bias_forward(bias_desc, d.dshift.data(), p.y(),
                                                           d.dy.data(), 1.0f, 0.0f);
        HostTensor plain = d.hy;
        d.dy.download(plain);
        ConvEpilogue ep;
        ep.shift = static_cast<const float*>(d.dshift.data());
        ASSERT_TRUE(run_fused(s, ctx, p, d, &ep));
        EXPECT_EQ(0, std::memcmp(plain.bytes.data(), d.hy.bytes.data(), plain.bytes.size()));
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 5);
}

// What each solver must decline: the contract's limits and the paths that cannot apply it.
TEST(CudaConvEpilogueLimits, DeclinesWhatItCannotApply) {
  REQUIRE_GPU();
  Config cfg;
  cfg.conv_allow_tf32 = true;
  auto backend = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *backend};
  const auto problem = [](const std::string& line, ConvDirection dir) {
    ConvSpec spec;
    EXPECT_FALSE(driver::parse_conv_line(line, spec)) << line;
    const test::BuiltConv b = test::build_conv(spec);
    return ConvProblem(dir, b.x, b.w, b.conv, b.y);
  };
  const ConvEpilogueNeeds relu{false, true, false, miopenActivationRELU};
  const ConvEpilogueNeeds z_relu{false, true, true, miopenActivationRELU};
  // No solver takes an epilogue on a backward problem.
  const ConvProblem bwd = problem("conv -n 2 -c 8 -H 9 -W 9 -k 8 -y 3 -x 3 -p 1 -q 1",  //
                                  ConvDirection::BackwardData);
  for (const auto& e : backend->solvers<ConvSolver>().entries()) {
    const Applicability a = e.solver->epilogue_support(ctx, bwd, relu);
    EXPECT_FALSE(a) << e.solver->name();
    EXPECT_FALSE(a.reason.empty()) << e.solver->name();
  }
  // The cuBLAS solvers: fp32 only (a 16-bit GEMM rounds y before the pass).
  const ConvProblem half = problem("convfp16 -n 2 -c 8 -H 9 -W 9 -k 8 -y 1 -x 1",  //
                                   ConvDirection::Forward);
  for (const char* name : {"GemmFwd1x1_0_1", "GemmFwdRest"}) {
    const ConvSolver& s = *backend->solvers<ConvSolver>().find(name)->solver;
    if (s.applicable(ctx, half)) EXPECT_FALSE(s.epilogue_support(ctx, half, relu)) << name;
  }
  // The tensor-core solver: a residual on a staged 16-bit output (NCHW) is declined, the same
  // chain without z and on an NHWC output with whole vectors is taken.
  const ConvSolverEntry* tc = backend->solvers<ConvSolver>().find("ImplicitGemmTensorCoreFwd");
  if (tc != nullptr) {  // built with CUTLASS
    const ConvProblem nchw =
        problem("convfp16 -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1", ConvDirection::Forward);
    const ConvProblem nhwc = problem(
        "convfp16 -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC",
        ConvDirection::Forward);
    if (tc->solver->applicable(ctx, nchw)) {
      EXPECT_FALSE(tc->solver->epilogue_support(ctx, nchw, z_relu));
      EXPECT_TRUE(tc->solver->epilogue_support(ctx, nchw, relu));
    }
    if (tc->solver->applicable(ctx, nhwc))
      EXPECT_TRUE(tc->solver->epilogue_support(ctx, nhwc, z_relu));
  }
}

}  // namespace
}  // namespace anydnn
