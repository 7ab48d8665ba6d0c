// Find through the internal front-end with explicit configurations: find modes and the find-db,
// the MIOPEN_DEBUG_CONV_* switches, MIOPEN_DEBUG_FIND_ONLY_SOLVER, the deterministic attribute,
// and workspace queries.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "common_test_util.hpp"
#include "conv/conv_ops.hpp"
#include "temp_dir.hpp"

namespace anydnn {
namespace {

struct SmallConv {
  TensorDescriptor x{miopenFloat, {2, 4, 9, 9}};
  TensorDescriptor w{miopenFloat, {6, 4, 3, 3}};
  ConvolutionDescriptor conv{miopenConvolution, {1, 1}, {1, 1}, {1, 1}};
  TensorDescriptor y{miopenFloat, {2, 6, 9, 9}};
  std::vector<float> hx = std::vector<float>(2 * 4 * 81, 0.5f), hw = std::vector<float>(216, 0.25f),
                     hy = std::vector<float>(2 * 6 * 81);
  std::vector<uint8_t> ws = std::vector<uint8_t>(1 << 20);
  ConvProblem problem(ConvDirection d = ConvDirection::Forward) const {
    return ConvProblem(d, x, w, conv, y);
  }
  ConvBuffers buffers() { return {hx.data(), hw.data(), hy.data(), ws.data(), ws.size()}; }
};

Config config_with_db(const std::string& dir, FindMode mode) {
  Config c;
  c.num_threads = 2;
  c.user_db_path = dir;
  c.system_db_path = "/nonexistent";
  c.find_mode = mode;
  c.log_level = LogLevel::Info2;
  return c;
}

// Runs Find with `cfg` on a fresh handle; returns the results and what was logged.
std::pair<std::vector<ConvFindEntry>, std::string> find_with(const Config& cfg, SmallConv& s,
                                                             bool exhaustive = false) {
  Handle h(cfg, nullptr);
  testing::internal::CaptureStderr();
  auto r = conv_find(h, s.problem(), s.buffers(), exhaustive);
  return {r, testing::internal::GetCapturedStderr()};
}

std::vector<std::string> solver_names(const std::vector<ConvFindEntry>& r) {
  std::vector<std::string> names;
  for (const auto& e : r)
    names.push_back(e.solver_name);
  return names;
}

// For each algorithm in order of first appearance in the registry, its first applicable
// non-fallback solver.
std::vector<std::string> first_solver_per_algorithm(const ConvProblem& p) {
  Config cfg;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  std::vector<std::string> names;
  std::set<int> seen;
  for (const auto& e : backend->solvers<ConvSolver>().entries()) {
    if (e.solver->fallback_only() || !e.solver->applicable(ctx, p)) continue;
    if (seen.insert(e.solver->algorithm()).second) names.emplace_back(e.solver->name());
  }
  return names;
}

bool timed_something(const std::string& log) {
  return log.find(" ms, workspace ") != std::string::npos;
}

TEST(ConvFindModes, NormalTimesAndStoresHybridReusesFastReuses) {
  test::TempDir dir;
  SmallConv s;
  auto [normal, log1] = find_with(config_with_db(dir.path(), FindMode::Normal), s);
  EXPECT_TRUE(timed_something(log1)) << log1;
  ASSERT_FALSE(normal.empty());
  EXPECT_GE(normal[0].time_ms, 0.0f);

  for (FindMode m : {FindMode::Hybrid, FindMode::DynamicHybrid, FindMode::Fast}) {
    auto [again, log] = find_with(config_with_db(dir.path(), m), s);
    EXPECT_FALSE(timed_something(log)) << log;
    EXPECT_NE(log.find("using the user find-db record: no solver timed"), std::string::npos) << log;
    ASSERT_EQ(again.size(), normal.size());
    EXPECT_EQ(again[0].solver_id, normal[0].solver_id);
    EXPECT_FLOAT_EQ(again[0].time_ms, normal[0].time_ms);
  }
  // NORMAL and exhaustive searches always measure again.
  EXPECT_TRUE(timed_something(find_with(config_with_db(dir.path(), FindMode::Normal), s).second));
  EXPECT_TRUE(
      timed_something(find_with(config_with_db(dir.path(), FindMode::Fast), s, true).second));
}

TEST(ConvFindModes, FastWithoutRecordUsesTheFallbackAndStoresNothing) {
  test::TempDir dir;
  SmallConv s;
  for (int run = 0; run < 2; ++run) {
    auto [r, log] = find_with(config_with_db(dir.path(), FindMode::Fast), s);
    EXPECT_FALSE(timed_something(log)) << log;
    EXPECT_NE(log.find("FAST: no find-db record, immediate-mode fallback"), std::string::npos);
    // One entry per algorithm with an applicable solver, each that algorithm's first
    // applicable non-fallback solver in registry order, none timed.
    EXPECT_EQ(solver_names(r), first_solver_per_algorithm(s.problem()));
    for (const auto& e : r)
      EXPECT_LT(e.time_ms, 0.0f);
  }
  // HYBRID finds no record either and measures.
  EXPECT_TRUE(timed_something(find_with(config_with_db(dir.path(), FindMode::Hybrid), s).second));
}

TEST(ConvFindModes, RecordWhoseSolversNoLongerApplyIsIgnored) {
  test::TempDir dir;
  SmallConv s;
  find_with(config_with_db(dir.path(), FindMode::Normal), s);  // records the GEMM solvers
  Config no_gemm = config_with_db(dir.path(), FindMode::Hybrid);
  no_gemm.conv_gemm_enabled = false;
  no_gemm.conv_implicit_gemm_enabled = false;
  no_gemm.conv_winograd_enabled = false;
  no_gemm.conv_fft_enabled = false;
  auto [r, log] = find_with(no_gemm, s);
  EXPECT_TRUE(timed_something(log)) << log;
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].solver_name, "ConvDirectNaiveConvFwd");
}

// The find-db key carries what changes the numerics or the solver set (issue [gpu-truth]): a
// record timed with TF32 allowed is not reused without it, nor the other way round, and the
// deterministic attribute keys its own records. fp16 problems ignore the TF32 switch.
TEST(ConvFindDbKey, Tf32AndDeterminismAreInTheKey) {
  SmallConv s;
  Config strict;
  Config tf32 = strict;
  tf32.conv_allow_tf32 = true;
  Handle hs(strict, nullptr), ht(tf32, nullptr);
  const ConvProblem p = s.problem();
  EXPECT_EQ(conv_db_key(hs, p), p.network_config());
  EXPECT_EQ(conv_db_key(ht, p), p.network_config() + " tf32");
  ConvolutionDescriptor det = s.conv;
  det.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1);
  const ConvProblem pd(ConvDirection::Forward, s.x, s.w, det, s.y);
  EXPECT_EQ(conv_db_key(ht, pd), p.network_config() + " tf32 deterministic");
  const TensorDescriptor hx{miopenHalf, {2, 4, 9, 9}}, hw{miopenHalf, {6, 4, 3, 3}},
      hy{miopenHalf, {2, 6, 9, 9}};
  const ConvProblem ph(ConvDirection::Forward, hx, hw, s.conv, hy);
  EXPECT_EQ(conv_db_key(ht, ph), ph.network_config());

  // A record stored with TF32 allowed is invisible without it: HYBRID then measures.
  test::TempDir dir;
  Config with = config_with_db(dir.path(), FindMode::Normal);
  with.conv_allow_tf32 = true;
  find_with(with, s);
  Config without = config_with_db(dir.path(), FindMode::Hybrid);
  auto [r, log] = find_with(without, s);
  EXPECT_TRUE(timed_something(log)) << log;
  with.find_mode = FindMode::Hybrid;
  auto [r2, log2] = find_with(with, s);
  EXPECT_FALSE(timed_something(log2)) << log2;
}

TEST(ConvSolverSelection, EnvironmentSwitchesAndAttributes) {
  SmallConv s;
  Config cfg;
  cfg.find_db_disabled = true;
  {
    // Everything enabled: every solver that applies, in registry order.
    Handle h(cfg, nullptr);
    std::vector<std::string> names, expected;
    for (const auto* e : applicable_conv_solvers(h, s.problem()))
      names.emplace_back(e->solver->name());
    for (const auto& e : h.backend().solvers<ConvSolver>().entries())
      if (e.solver->applicable(h.context(), s.problem())) expected.emplace_back(e.solver->name());
    EXPECT_EQ(names, expected);
    EXPECT_EQ(names.back(), "ConvDirectNaiveConvFwd");
  }
  // The rest of this test switches GEMM and direct; the other algorithms stay off.
  cfg.conv_implicit_gemm_enabled = false;
  cfg.conv_winograd_enabled = false;
  cfg.conv_fft_enabled = false;
  {
    Handle h(cfg, nullptr);
    const auto all = applicable_conv_solvers(h, s.problem());
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0]->solver->name(), "GemmFwdRest");
    EXPECT_EQ(conv_workspace_size(h, s.problem()),
              all[0]->solver->workspace_size(h.context(), s.problem()));
  }
  cfg.conv_gemm_enabled = false;
  {
    Handle h(cfg, nullptr);
    const auto only = applicable_conv_solvers(h, s.problem());
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only[0]->solver->name(), "ConvDirectNaiveConvFwd");
    EXPECT_EQ(conv_workspace_size(h, s.problem()), 0u);
  }
  cfg.conv_gemm_enabled = true;
  cfg.conv_direct_enabled = false;
  EXPECT_EQ(applicable_conv_solvers(*std::make_unique<Handle>(cfg, nullptr), s.problem()).size(),
            1u);
  cfg.conv_direct_enabled = true;
  cfg.find_only_solver = "ConvDirectNaiveConvFwd";
  {
    Handle h(cfg, nullptr);
    const auto only = applicable_conv_solvers(h, s.problem());
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only[0]->id, 1u);
  }
  cfg.find_only_solver = "2";  // by id
  {
    Handle h(cfg, nullptr);
    const auto only = applicable_conv_solvers(h, s.problem());
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only[0]->solver->name(), "GemmFwdRest");
    // Find then has nothing for the other directions.
    EXPECT_TRUE(applicable_conv_solvers(h, s.problem(ConvDirection::BackwardData)).empty());
  }
}

TEST(ConvSolverSelection, EveryCpuSolverDeclaresDeterminism) {
  // The deterministic attribute filters on this; all CPU solvers sum in a fixed order.
  Config cfg;
  auto backend = make_cpu_backend(cfg);
  SmallConv s;
  for (const auto& e : backend->solvers<ConvSolver>().entries())
    EXPECT_TRUE(e.solver->deterministic(s.problem())) << e.solver->name();
}

}  // namespace
}  // namespace anydnn
