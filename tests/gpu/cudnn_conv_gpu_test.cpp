// The cuDNN solvers (CudnnConvFwd / Bwd / Wrw: cuDNN's engines as Find candidates, loaded at run
// time) beyond what the per-solver test (conv_solvers_gpu_test.cpp, cuDNN's first choice on every
// problem of the shared list) covers: every engine a search may pick against the double reference,
// the off switch, the workspace bound, an exhaustive Find keeping the engine in the find-db record
// and immediate mode in a new handle running that engine, and a deterministic request.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cudnn/cudnn_state.hpp"
#include "common_test_util.hpp"
#include "conv/conv_ops.hpp"
#include "conv_reference.hpp"
#include "conv_test_util.hpp"
#include "gpu/gpu_test_util.hpp"
#include "handle/handle.hpp"
#include "unit/temp_dir.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

using driver::HostTensor;
using test::DeviceTensor;

const char* const kSolvers[] = {"CudnnConvFwd", "CudnnConvBwd", "CudnnConvWrw"};
const ConvDirection kDirs[] = {ConvDirection::Forward, ConvDirection::BackwardData,
                               ConvDirection::BackwardWeights};

// A problem's tensors on host and device, inputs random, the direction's output poisoned.
struct Io {
  // Before p: p's initializer fills it (members are constructed in declaration order).
  ref::ConvParams params;
  ConvProblem p;
  HostTensor hx, hw, hy;
  DeviceTensor dx, dw, dy;
  Io(const std::string& line, ConvDirection d, std::mt19937& rng, int deterministic = 0)
      : params(),
        p(make(line, d, deterministic, params)),
        hx(test::host_tensor(p.x())),
        hw(test::host_tensor(p.w())),
        hy(test::host_tensor(p.y())) {
    for (HostTensor* t : {&hx, &hw, &hy})
      if (t != &out_host()) test::fill_random(*t, rng);
    dx = DeviceTensor(hx);
    dw = DeviceTensor(hw);
    dy = DeviceTensor(hy);
  }
  static ConvProblem make(const std::string& line, ConvDirection d, int deterministic,
                          ref::ConvParams& params) {
    driver::ConvSpec spec;
    EXPECT_FALSE(driver::parse_conv_line(line, spec)) << line;
    test::BuiltConv b = test::build_conv(spec);
    b.conv.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, deterministic);
    params = test::conv_params(spec);
    return ConvProblem(d, b.x, b.w, b.conv, b.y);
  }
  HostTensor& out_host() {
    return p.direction() == ConvDirection::Forward        ? hy
           : p.direction() == ConvDirection::BackwardData ? hx
                                                          : hw;
  }
  DeviceTensor& out_dev() {
    return p.direction() == ConvDirection::Forward        ? dy
           : p.direction() == ConvDirection::BackwardData ? dx
                                                          : dw;
  }
  ConvBuffers buffers(void* ws, size_t ws_bytes) const {
    return {dx.data(), dw.data(), dy.data(), ws, ws_bytes};
  }
  // The output's relative rms error against the double reference, after a run.
  double error() {
    out_dev().download(out_host());
    const auto expected = test::conv_reference(p, params, hx, hw, hy);
    return ref::relative_rms(expected, ref::to_logical(out_host().view()));
  }
};

const ConvSolver& solver(Backend& be, const char* name) {
  const auto* e = be.solvers<ConvSolver>().find(name);
  EXPECT_NE(e, nullptr) << name;
  return *e->solver;
}

Config gpu_config() {
  Config c;
  c.backend = BackendKind::Cuda;
  c.backend_from_env = true;
  return c;
}

// Every engine cuDNN offers for the problem (those a search may pick), each alone on the same
// inputs, against the reference with MIOpen's tolerance: 2-D NCHW fp32 (strict: no TF32
// engine), NHWC fp16 and bf16, grouped, strided and dilated, and 3-D.
TEST(CudnnConv, EveryEngineMatchesTheReference) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  const Config cfg = gpu_config();
  auto be = make_cuda_backend(cfg, nullptr);
  auto& cudnn = static_cast<cuda::CudaBackend&>(*be).cudnn();
  ASSERT_EQ(cudnn.unavailable(), "") << "the GPU machine has cuDNN";
  const char* lines[] = {
      "conv -n 2 -c 16 -H 13 -W 11 -k 24 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1",
      "convfp16 -n 3 -c 32 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      "convbfp16 -n 2 -c 24 -H 10 -W 7 -k 40 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 --in_layout NHWC "
      "--fil_layout NHWC --out_layout NHWC",
      "conv -n 2 -c 8 -H 12 -W 12 -k 8 -y 3 -x 3 -p 2 -q 2 -u 1 -v 1 -l 2 -j 2 -g 4",
      "conv -n 2 -c 4 --in_d 6 -H 7 -W 5 -k 6 --fil_d 3 -y 3 -x 3 --pad_d 1 -p 1 -q 1 "
      "--spatial_dim 3",
  };
  int engines_run = 0;
  for (const char* line : lines) {
    for (int d = 0; d < 3; ++d) {
      Io io(line, kDirs[d], rng);
      SCOPED_TRACE(io.p.key());
      std::string why;
      const auto eng = cudnn.conv_engines(io.p, &why);
      ASSERT_TRUE(eng) << why;
      ASSERT_FALSE(eng->engines().empty());
      for (size_t i = 0; i < eng->engines().size(); ++i) {
        const cuda::CudnnEngine& e = eng->engines()[i];
        SCOPED_TRACE(e.name);
        DeviceTensor ws(e.workspace);
        io.out_dev().poison();
        ASSERT_NO_THROW(eng->run(i, io.buffers(e.workspace ? ws.data() : nullptr, e.workspace)));
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_LE(io.error(), test::conv_tolerance(io.p));
        ++engines_run;
      }
    }
  }
  EXPECT_GT(engines_run, 15);
}

TEST(CudnnConv, OffSwitchGivesTheReason) {
  REQUIRE_GPU();
  Config cfg = gpu_config();
  cfg.cudnn_enabled = false;
  auto be = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *be};
  std::mt19937 rng(1);
  for (int d = 0; d < 3; ++d) {
    Io io("conv -n 1 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3 -p 1 -q 1", kDirs[d], rng);
    const Applicability a = solver(*be, kSolvers[d]).applicable(ctx, io.p);
    EXPECT_FALSE(a);
    EXPECT_NE(a.reason.find("ANYDNN_CUDNN=0"), std::string::npos) << a.reason;
  }
}

// The search times only engines that fit the caller's workspace: with none, it picks one that
// needs none; with plenty, its pick runs and matches the reference.
TEST(CudnnConv, SearchKeepsToTheWorkspace) {
  REQUIRE_GPU();
  const Config cfg = gpu_config();
  auto be = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *be};
  std::mt19937 rng(test::fresh_seed());
  for (int d = 0; d < 3; ++d) {
    Io io("conv -n 8 -c 64 -H 14 -W 14 -k 64 -y 3 -x 3 -p 1 -q 1", kDirs[d], rng);
    SCOPED_TRACE(io.p.key());
    const ConvSolver& s = solver(*be, kSolvers[d]);
    ASSERT_TRUE(s.applicable(ctx, io.p));
    ASSERT_TRUE(s.tuned());
    if (s.least_workspace_size(ctx, io.p) == 0) {
      const std::string none = s.search(ctx, io.p, io.buffers(nullptr, 0));
      ASSERT_FALSE(none.empty());
      EXPECT_EQ(s.tuned_workspace_size(ctx, io.p, none), 0u) << none;
    }
    const size_t most = s.workspace_size(ctx, io.p);
    EXPECT_LE(most, cuda::kCudnnMaxWorkspace);
    DeviceTensor ws(most);
    const std::string best = s.search(ctx, io.p, io.buffers(ws.data(), most));
    ASSERT_FALSE(best.empty());
    io.out_dev().poison();
    s.make_tuned_invoker(ctx, io.p, best)(io.buffers(ws.data(), most));
    EXPECT_LE(io.error(), test::conv_tolerance(io.p)) << best;
  }
}

// An exhaustive Find (only the cuDNN solver, MIOPEN_DEBUG_FIND_ONLY_SOLVER) stores the engine it
// chose in the user find-db; a new handle's immediate mode lists the solver with that engine's
// workspace and runs that engine without searching again.
TEST(CudnnConv, FindKeepsTheEngineAndImmediateModeReusesIt) {
  REQUIRE_GPU();
  test::TempDir dir;
  std::mt19937 rng(test::fresh_seed());
  for (int d = 0; d < 3; ++d) {
    Config cfg = gpu_config();
    cfg.user_db_path = dir.path();
    cfg.system_db_path = "/nonexistent";
    cfg.find_only_solver = kSolvers[d];
    Io io(
        "convfp16 -n 4 -c 32 -H 12 -W 12 -k 48 -y 3 -x 3 -p 1 -q 1 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC",
        kDirs[d], rng);
    SCOPED_TRACE(io.p.key());
    std::string params;
    size_t ws_found = 0;
    {
      Handle h(cfg, nullptr);
      const size_t ws_bytes = conv_workspace_size(h, io.p);
      DeviceTensor ws(ws_bytes);
      const auto found = conv_find(h, io.p, io.buffers(ws.data(), ws_bytes), true);
      ASSERT_EQ(found.size(), 1u);
      EXPECT_EQ(found[0].solver_name, kSolvers[d]);
      EXPECT_EQ(found[0].algorithm, miopenConvolutionAlgoImplicitGEMM);
      params = found[0].params;
      ws_found = found[0].workspace_size;
      EXPECT_FALSE(params.empty());
      EXPECT_LE(ws_found, ws_bytes);
      EXPECT_LE(io.error(), test::conv_tolerance(io.p));
    }
    Handle again(cfg, nullptr);
    const auto rec = again.find_db().load(conv_db_key(again, io.p));
    ASSERT_TRUE(rec);
    EXPECT_EQ(rec->source, FindRecordSource::User);
    ASSERT_EQ(rec->entries.size(), 1u);
    EXPECT_EQ(rec->entries[0].params, params);
    const auto sols = conv_solutions(again, io.p);
    ASSERT_FALSE(sols.empty());
    EXPECT_EQ(sols[0].workspace_size, ws_found);
    EXPECT_EQ(conv_solution_workspace_size(again, io.p, sols[0].solution_id), ws_found);
    DeviceTensor ws(ws_found);
    io.out_dev().poison();
    conv_run_solution(again, io.p, sols[0].solution_id, io.buffers(ws.data(), ws_found));
    EXPECT_LE(io.error(), test::conv_tolerance(io.p));
  }
}

// Asked for determinism, the cuDNN solvers offer only deterministic engines (backward weights is
// where cuDNN has atomics-based ones): the default engine gives the same bits twice.
TEST(CudnnConv, DeterministicRequestGivesTheSameBits) {
  REQUIRE_GPU();
  const Config cfg = gpu_config();
  auto be = make_cuda_backend(cfg, nullptr);
  const ExecutionContext ctx{cfg, *be};
  std::mt19937 rng(test::fresh_seed());
  for (int d = 0; d < 3; ++d) {
    Io io("conv -n 16 -c 64 -H 14 -W 14 -k 64 -y 3 -x 3 -p 1 -q 1", kDirs[d], rng, 1);
    SCOPED_TRACE(io.p.key());
    const ConvSolver& s = solver(*be, kSolvers[d]);
    EXPECT_TRUE(s.deterministic(io.p));
    ASSERT_TRUE(s.applicable(ctx, io.p));
    const size_t ws_bytes = s.workspace_size(ctx, io.p);
    DeviceTensor ws(ws_bytes);
    const ConvInvoker inv = s.make_invoker(ctx, io.p);
    inv(io.buffers(ws.data(), ws_bytes));
    io.out_dev().download(io.out_host());
    const std::vector<uint8_t> first = io.out_host().bytes;
    io.out_dev().poison();
    inv(io.buffers(ws.data(), ws_bytes));
    io.out_dev().download(io.out_host());
    EXPECT_TRUE(first == io.out_host().bytes);
  }
}

}  // namespace
}  // namespace anydnn
