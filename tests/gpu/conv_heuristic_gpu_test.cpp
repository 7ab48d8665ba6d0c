// The GPU path users take without an exhaustive search (issue [gpu-truth] 1): on layers where
// the CUDA solvers compete (ResNet-50's first layer, a 3x3, strided 1x1s, 7x7 maps, DeepSpeech's
// C=1 20x5 filter), in all three directions and in fp32, TF32 and fp16 NCHW, immediate mode's
// first solution (no find-db record: the cost models decide) and Find's default mode (which
// times only the candidates the models keep) must each run within 1.2x of the fastest solver
// measured alone. The cost models are validated on every ResNet-50 and DeepBench layer by
// bench/solver_bench (docs/find-and-heuristics.md); this test keeps a few of them from breaking.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "common_test_util.hpp"
#include "conv/conv_ops.hpp"
#include "conv_test_util.hpp"
#include "gpu/gpu_test_util.hpp"
#include "handle/handle.hpp"

namespace anydnn {
namespace {

using test::DeviceTensor;

struct Precision {
  const char* name;
  miopenDataType_t type;
  bool tf32;
};

const Precision kPrecisions[] = {
    {"fp32", miopenFloat, false}, {"tf32", miopenFloat, true}, {"fp16", miopenHalf, false}};

const char* const kDirNames[] = {"fwd", "bwdd", "bwdw"};

const char* kLayers[] = {
    "conv -n 32 -c 3 -H 224 -W 224 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2",     // ResNet-50 L00
    "conv -n 32 -c 128 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1",    // ResNet-50 L10
    "conv -n 32 -c 1024 -H 14 -W 14 -k 2048 -y 1 -x 1 -p 0 -q 0 -u 2 -v 2",  // the repro
    "conv -n 32 -c 512 -H 7 -W 7 -k 512 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1",      // ResNet-50 L22
    "conv -n 16 -c 1 -H 161 -W 700 -k 32 -y 5 -x 20 -p 0 -q 0 -u 2 -v 2",    // DeepSpeech
};

Config gpu_config(bool tf32) {
  Config c;
  c.backend = BackendKind::Cuda;
  c.backend_from_env = true;
  c.find_db_disabled = true;  // every Find measures; immediate mode sees no record
  c.conv_allow_tf32 = tf32;
  return c;
}

// Median device time of a solver's invoker over `reps` runs after two warm-up runs.
float median_ms(Backend& be, const ConvInvoker& inv, const ConvBuffers& b, int reps = 9) {
  for (int i = 0; i < 2; ++i)
    be.run_timed([&] { inv(b); });
  std::vector<float> t;
  for (int i = 0; i < reps; ++i)
    t.push_back(be.run_timed([&] { inv(b); }));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

class ConvHeuristic : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(ConvHeuristic, DefaultPathWithin1_2xOfFastestSolver) {
  REQUIRE_GPU();
  const auto [layer, prec_index, dir_index] = GetParam();
  const Precision& prec = kPrecisions[prec_index];
  driver::ConvSpec spec;
  ASSERT_FALSE(driver::parse_conv_line(kLayers[layer], spec));
  spec.type = prec.type;
  const auto built = test::build_conv(spec);
  const ConvDirection dir = dir_index == 0   ? ConvDirection::Forward
                            : dir_index == 1 ? ConvDirection::BackwardData
                                             : ConvDirection::BackwardWeights;
  const ConvProblem p(dir, built.x, built.w, built.conv, built.y);
  SCOPED_TRACE(p.key() + std::string(" ") + prec.name);

  Handle handle(gpu_config(prec.tf32), nullptr);
  Backend& be = handle.backend();
  std::mt19937 rng(test::fresh_seed());
  auto hx = test::host_tensor(p.x()), hw = test::host_tensor(p.w()), hy = test::host_tensor(p.y());
  for (auto* t : {&hx, &hw, &hy})
    test::fill_random(*t, rng);
  DeviceTensor dx(hx), dw(hw), dy(hy);
  const size_t ws_bytes = conv_workspace_size(handle, p);
  DeviceTensor ws(ws_bytes);
  ASSERT_TRUE(dx.data() && dw.data() && dy.data() && ws.data());
  const ConvBuffers bufs{dx.data(), dw.data(), dy.data(), ws.data(), ws_bytes};

  // Every regular solver alone: the fastest is the bar. Immediate mode ranks by the cost
  // models, which the tuned cuDNN solvers (CudnnConv*, cuDNN's first-choice engine here) do not
  // have: without a find-db record they come after the modelled solvers, so immediate mode is held
  // to the fastest untuned solver, and Find, which times them all, to the fastest of all.
  std::map<uint64_t, float> measured;
  float best = 1e30f, best_untuned = 1e30f;
  std::string best_name, best_untuned_name;
  for (const auto* e : applicable_conv_solvers(handle, p)) {
    if (e->solver->fallback_only()) continue;
    const float ms = median_ms(be, e->solver->make_invoker(handle.context(), p), bufs);
    measured[e->id] = ms;
    if (ms < best) best = ms, best_name = std::string(e->solver->name());
    if (!e->solver->tuned() && ms < best_untuned)
      best_untuned = ms, best_untuned_name = std::string(e->solver->name());
  }
  ASSERT_FALSE(measured.empty());
  // 1.2x, plus 5 us of timing noise for the shortest problems.
  const float bar = 1.2f * best + 0.005f;
  const float bar_untuned = 1.2f * best_untuned + 0.005f;

  const auto solutions = conv_solutions(handle, p);
  ASSERT_FALSE(solutions.empty());
  const uint64_t first = solutions.front().solution_id;
  ASSERT_TRUE(measured.count(first)) << "immediate mode's first solution is a fallback";
  EXPECT_LE(measured[first], bar_untuned)
      << "immediate mode's first solution "
      << handle.backend().solvers<ConvSolver>().find(first)->solver->name() << " takes "
      << measured[first] << " ms; " << best_untuned_name << " takes " << best_untuned;

  const auto found = conv_find(handle, p, bufs, /*exhaustive_search=*/false);
  ASSERT_FALSE(found.empty());
  ASSERT_TRUE(measured.count(found.front().solver_id));
  EXPECT_LE(measured[found.front().solver_id], bar)
      << "Find's default mode chose " << found.front().solver_name << " ("
      << measured[found.front().solver_id] << " ms); " << best_name << " takes " << best;
}

INSTANTIATE_TEST_SUITE_P(Layers, ConvHeuristic,
                         ::testing::Combine(::testing::Range(0, 5), ::testing::Range(0, 3),
                                            ::testing::Range(0, 3)),
                         [](const auto& info) {
                           return "L" + std::to_string(std::get<0>(info.param)) + "_" +
                                  kPrecisions[std::get<1>(info.param)].name + "_" +
                                  kDirNames[std::get<2>(info.param)];
                         });

}  // namespace
}  // namespace anydnn
