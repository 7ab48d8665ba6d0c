// Every CUDA multi-head-attention solver, alone, on every case of tests/mha_test_cases.hpp it
// declares applicable (both masks, dropout, bias, fp16 / bf16, forward and backward), on device
// buffers with a NaN-poisoned workspace and outputs, against the double reference; the GEMM
// solvers on every case whose operand rows are contiguous (the naive ones on the rest); a
// longer sequence; and a rerun that must give identical bytes.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "backend/backend.hpp"
#include "gpu/gpu_test_util.hpp"
#include "mha/mha_ops.hpp"
#include "mha/mha_solver.hpp"
#include "mha_test_cases.hpp"

namespace anydnn {
namespace {

using test::GpuBackend;

std::vector<std::string> every_cuda_mha_solver() {
  if (!test::gpu_present()) return {"NoCudaDevice"};
  GpuBackend g;
  std::vector<std::string> names;
  for (const auto& e : g.backend->solvers<MhaSolver>().entries())
    names.emplace_back(e.solver->name());
  return names;
}

// Uploads every tensor, runs the solver with a poisoned device workspace (the mask stays in
// host memory, as MIOpen's scalar argument), and downloads the outputs.
test::MhaRunner device_runner(const MhaSolver& s, const ExecutionContext& ctx) {
  return [&s, &ctx](const MhaProblem& p, test::MhaHostCall& call) {
    std::map<MhaTensor, test::DeviceTensor> dev;
    for (auto& [t, h] : call.t)
      dev.emplace(t, test::DeviceTensor(h));
    const MhaBuffers b = mha_buffers(
        p, call.arguments([&](MhaTensor t, driver::HostTensor&) { return dev.at(t).data(); }));
    test::DeviceTensor ws(s.workspace_size(ctx, p));
    ws.poison();
    s.run(ctx, p, b, ws.data());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (auto& [t, h] : call.t)
      if (mha_is_output(p.direction(), t)) dev.at(t).download(h);
  };
}

class MhaSolverAloneGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(MhaSolverAloneGpu, MatchesReferenceOnEveryCaseItTakes) {
  REQUIRE_GPU();
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  const auto* entry = g.backend->solvers<MhaSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const MhaSolver& s = *entry->solver;
  const test::MhaRunner run = device_runner(s, ctx);
  int ran = 0;
  for (const test::MhaCase& c : test::mha_cases())
    for (const MhaDirection dir : {MhaDirection::Forward, MhaDirection::Backward}) {
      const MhaProblem p = test::mha_problem(c, dir);
      const Applicability a = s.applicable(ctx, p);
      const bool own =
          (dir == MhaDirection::Forward) == (solver.find("Forward") != std::string::npos);
      // Promises: the fallbacks take every problem of their direction, the GEMM solvers every
      // one but the layout whose rows are not contiguous.
      EXPECT_EQ(static_cast<bool>(a),
                own && (s.fallback_only() || c.layout != test::MhaLayout::Strided))
          << c.name << ": " << a.reason;
      if (!a) continue;
      test::check_mha(c, dir, rng, run);
      ++ran;
    }
  EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, MhaSolverAloneGpu, ::testing::ValuesIn(every_cuda_mha_solver()),
                         [](const auto& info) { return info.param; });

// A longer sequence (512 keys: many warps' worth of columns per row, several blocks of rows),
// half precision with causal mask, dropout and bias, both directions, every applicable solver.
TEST(MhaSolversGpuExtra, LongSequenceHalf) {
  REQUIRE_GPU();
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  std::mt19937 rng(test::fresh_seed());
  const test::MhaCase c{"long_fp16",
                        2,
                        4,
                        512,
                        512,
                        64,
                        64,
                        miopenHalf,
                        true,
                        0.1f,
                        {2, 4, 512, 512},
                        miopenHalf,
                        test::MhaLayout::Packed,
                        0.125f};
  for (const auto& e : g.backend->solvers<MhaSolver>().entries())
    for (const MhaDirection dir : {MhaDirection::Forward, MhaDirection::Backward}) {
      const MhaProblem p = test::mha_problem(c, dir);
      if (!e.solver->applicable(ctx, p)) continue;
      SCOPED_TRACE(std::string(e.solver->name()));
      test::check_mha(c, dir, rng, device_runner(*e.solver, ctx));
    }
}

// Two runs on the same inputs give the same bytes (no atomics in any output but the amaxes,
// whose maximum does not depend on order).
TEST(MhaSolversGpuExtra, RerunGivesIdenticalBytes) {
  REQUIRE_GPU();
  GpuBackend g;
  const ExecutionContext ctx = g.ctx();
  std::mt19937 rng(test::fresh_seed());
  const test::MhaCase c{"rerun", 2, 3, 77, 77, 32, 32, miopenFloat, true, 0.3f, {1, 3, 77, 77}};
  for (const auto& e : g.backend->solvers<MhaSolver>().entries())
    for (const MhaDirection dir : {MhaDirection::Forward, MhaDirection::Backward}) {
      const MhaProblem p = test::mha_problem(c, dir);
      if (!e.solver->applicable(ctx, p)) continue;
      SCOPED_TRACE(std::string(e.solver->name()));
      test::MhaHostCall call;
      test::mha_fill(c, p, call, rng);
      test::MhaHostCall first = call, second = call;
      const test::MhaRunner run = device_runner(*e.solver, ctx);
      run(p, first);
      run(p, second);
      for (const auto& [t, h] : first.t)
        EXPECT_EQ(h.bytes, second.t.at(t).bytes) << mha_tensor_name(t);
    }
}

}  // namespace
}  // namespace anydnn
