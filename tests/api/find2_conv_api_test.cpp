// Find 2.0 on convolution problems through the public C API, over the shared problem list
// (tests/problems/conv_problems.txt: odd sizes, stride, dilation, padding, groups, 1x1, 3-D,
// NHWC, fp16, bf16, batch 1, transposed) in every direction: the same solvers and the same
// find-db record as the legacy Find (either called first), every solution's output within
// MIOpen's tolerance of the double reference and bit-for-bit the legacy and immediate-mode runs
// of the same solver; results order, the workspace limit, preallocated buffers, and saving and
// loading solutions.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "find2_test_util.hpp"

namespace anydnn::test {
namespace {

using driver::HostTensor;

// Legacy Find in direction `dir` with the workspace GetWorkSpaceSize asks for.
std::vector<miopenConvAlgoPerf_t> legacy_find(miopenHandle_t h, ConvSetup& c,
                                              miopenProblemDirection_t dir,
                                              std::vector<uint8_t>& ws) {
  size_t bytes = 0;
  miopenStatus_t rc = miopenStatusSuccess;
  if (dir == miopenProblemDirectionForward)
    rc = miopenConvolutionForwardGetWorkSpaceSize(h, c.w, c.x, c.conv, c.y, &bytes);
  else if (dir == miopenProblemDirectionBackward)
    rc = miopenConvolutionBackwardDataGetWorkSpaceSize(h, c.y, c.w, c.conv, c.x, &bytes);
  else
    rc = miopenConvolutionBackwardWeightsGetWorkSpaceSize(h, c.y, c.x, c.conv, c.w, &bytes);
  EXPECT_EQ(rc, miopenStatusSuccess);
  ws.assign(bytes, 0);
  HostTensor out = c.output(dir);
  miopenConvAlgoPerf_t perf[8];
  int n = 0;
  void* wsp = ws.empty() ? nullptr : ws.data();
  if (dir == miopenProblemDirectionForward)
    rc = miopenFindConvolutionForwardAlgorithm(h, c.x, c.hx.data(), c.w, c.hw.data(), c.conv, c.y,
                                               out.data(), 8, &n, perf, wsp, ws.size(), false);
  else if (dir == miopenProblemDirectionBackward)
    rc = miopenFindConvolutionBackwardDataAlgorithm(h, c.y, c.hy.data(), c.w, c.hw.data(), c.conv,
                                                    c.x, out.data(), 8, &n, perf, wsp, ws.size(),
                                                    false);
  else
    rc = miopenFindConvolutionBackwardWeightsAlgorithm(h, c.y, c.hy.data(), c.x, c.hx.data(),
                                                       c.conv, c.w, out.data(), 8, &n, perf, wsp,
                                                       ws.size(), false);
  EXPECT_EQ(rc, miopenStatusSuccess);
  return std::vector<miopenConvAlgoPerf_t>(perf, perf + n);
}

// The legacy run of the algorithm Find picked for it, into `out`.
miopenStatus_t legacy_run(miopenHandle_t h, ConvSetup& c, miopenProblemDirection_t dir, int algo,
                          HostTensor& out, std::vector<uint8_t>& ws) {
  const float one = 1.0f, zero = 0.0f;
  void* wsp = ws.empty() ? nullptr : ws.data();
  if (dir == miopenProblemDirectionForward)
    return miopenConvolutionForward(h, &one, c.x, c.hx.data(), c.w, c.hw.data(), c.conv,
                                    static_cast<miopenConvFwdAlgorithm_t>(algo), &zero, c.y,
                                    out.data(), wsp, ws.size());
  if (dir == miopenProblemDirectionBackward)
    return miopenConvolutionBackwardData(h, &one, c.y, c.hy.data(), c.w, c.hw.data(), c.conv,
                                         static_cast<miopenConvBwdDataAlgorithm_t>(algo), &zero,
                                         c.x, out.data(), wsp, ws.size());
  return miopenConvolutionBackwardWeights(h, &one, c.y, c.hy.data(), c.x, c.hx.data(), c.conv,
                                          static_cast<miopenConvBwdWeightsAlgorithm_t>(algo), &zero,
                                          c.w, out.data(), wsp, ws.size());
}

// Immediate mode's run of solver `id`, into `out`.
miopenStatus_t immediate_run(miopenHandle_t h, ConvSetup& c, miopenProblemDirection_t dir,
                             uint64_t id, HostTensor& out, std::vector<uint8_t>& ws) {
  void* wsp = ws.empty() ? nullptr : ws.data();
  if (dir == miopenProblemDirectionForward)
    return miopenConvolutionForwardImmediate(h, c.w, c.hw.data(), c.x, c.hx.data(), c.conv, c.y,
                                             out.data(), wsp, ws.size(), id);
  if (dir == miopenProblemDirectionBackward)
    return miopenConvolutionBackwardDataImmediate(h, c.y, c.hy.data(), c.w, c.hw.data(), c.conv,
                                                  c.x, out.data(), wsp, ws.size(), id);
  return miopenConvolutionBackwardWeightsImmediate(h, c.y, c.hy.data(), c.x, c.hx.data(), c.conv,
                                                   c.w, out.data(), wsp, ws.size(), id);
}

// The arguments of a run writing `out` instead of the setup's own output tensor.
std::vector<miopenTensorArgument_t> args_into(ConvSetup& c, miopenProblemDirection_t dir,
                                              HostTensor& out) {
  auto args = c.args();
  const miopenTensorArgumentId_t written =
      dir == miopenProblemDirectionForward    ? miopenTensorConvolutionY
      : dir == miopenProblemDirectionBackward ? miopenTensorConvolutionX
                                              : miopenTensorConvolutionW;
  for (auto& a : args)
    if (a.id == written) a.buffer = out.data();
  return args;
}

// The algorithm legacy Find reports a solver under: MIOpen's backward-weights enum has no FFT,
// so the FFT weights solver competes as GEMM (docs/adding-a-solver.md).
int legacy_algorithm(uint64_t solver_id, miopenProblemDirection_t dir) {
  miopenConvAlgorithm_t a;
  EXPECT_EQ(miopenGetSolverIdConvAlgorithm(solver_id, &a), miopenStatusSuccess);
  if (dir == miopenProblemDirectionBackwardWeights && a == miopenConvolutionAlgoFFT)
    return miopenConvolutionAlgoGEMM;
  return a;
}

// Per algorithm, the fastest solution's index (solutions come fastest first).
std::map<int, size_t> fastest_per_algorithm(const Solutions& sols, miopenProblemDirection_t dir) {
  std::map<int, size_t> best;
  for (size_t i = 0; i < sols.size(); ++i)
    best.emplace(legacy_algorithm(info_of(sols[i]).id, dir), i);
  return best;
}

// Same solvers and record: each legacy result (algorithm, time, workspace) is the fastest
// Find 2.0 solution of that algorithm, time for time (a time measured again would differ), and
// Find 2.0 has no algorithm legacy Find lacks.
void expect_same_record(const std::vector<miopenConvAlgoPerf_t>& legacy, const Solutions& sols,
                        miopenProblemDirection_t dir) {
  const auto best = fastest_per_algorithm(sols, dir);
  EXPECT_EQ(best.size(), legacy.size());
  for (const auto& perf : legacy) {
    const int algo = perf.fwd_algo;  // the three enums share values
    SCOPED_TRACE("algorithm " + std::to_string(algo));
    const auto it = best.find(algo);
    ASSERT_NE(it, best.end());
    const SolutionInfo s = info_of(sols[it->second]);
    EXPECT_EQ(s.time, perf.time);
    EXPECT_EQ(s.workspace, perf.memory);
  }
}

// Every solution runs (output poisoned first) within tolerance of the reference and bit for bit
// as immediate mode runs the same solver; each algorithm's fastest bit for bit as the legacy
// run of that algorithm on `legacy_h`.
void expect_runs_match(miopenHandle_t h, miopenHandle_t legacy_h, ConvSetup& c,
                       miopenProblemDirection_t dir, const Solutions& sols,
                       std::vector<uint8_t>& legacy_ws) {
  const auto expected = c.reference(dir);
  const auto best = fastest_per_algorithm(sols, dir);
  std::set<uint64_t> ids;
  for (size_t i = 0; i < sols.size(); ++i) {
    const SolutionInfo s = info_of(sols[i]);
    SCOPED_TRACE("solver " + std::to_string(s.id));
    EXPECT_TRUE(ids.insert(s.id).second) << "one solution per solver";
    HostTensor out = c.output(dir), imm = c.output(dir);
    out.poison();
    imm.poison();
    std::vector<uint8_t> ws(s.workspace);
    ASSERT_EQ(run(h, sols[i], args_into(c, dir, out), &ws), miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(expected, ref::to_logical(out.view())), c.tolerance(dir));
    ASSERT_EQ(immediate_run(h, c, dir, s.id, imm, ws), miopenStatusSuccess);
    EXPECT_EQ(out.bytes, imm.bytes) << "immediate mode differs";
    const int algo = legacy_algorithm(s.id, dir);
    if (best.at(algo) == i) {
      HostTensor old = c.output(dir);
      old.poison();
      ASSERT_EQ(legacy_run(legacy_h, c, dir, algo, old, legacy_ws), miopenStatusSuccess);
      EXPECT_EQ(out.bytes, old.bytes) << "the legacy run of algorithm " << algo << " differs";
    }
  }
}

class Find2ConvProblems : public testing::TestWithParam<std::string> {};

// Legacy Find first (it times, or reads a record), then Find 2.0 on another handle: the record
// on disk is what both see.
TEST_P(Find2ConvProblems, SameSolversRecordAndOutputsAsLegacyFind) {
  ConvSetup c(GetParam());
  SCOPED_TRACE(seed_trace(c.seed));
  Handle legacy_h, h;
  for (const auto dir : directions_of(c.spec)) {
    SCOPED_TRACE(direction_label(dir));
    std::vector<uint8_t> legacy_ws;
    const auto legacy = legacy_find(legacy_h, c, dir, legacy_ws);
    ASSERT_FALSE(legacy.empty());
    Find2Problem p = c.problem(dir);
    const Solutions sols = find_solutions(h, p);
    ASSERT_GT(sols.size(), 0u);
    expect_same_record(legacy, sols, dir);
    expect_runs_match(h, legacy_h, c, dir, sols, legacy_ws);
  }
}

INSTANTIATE_TEST_SUITE_P(ConvProblemList, Find2ConvProblems,
                         testing::ValuesIn(load_problem_lines("conv_problems.txt")),
                         [](const auto& info) {
                           return std::to_string(info.index) + "_" + test_name_of(info.param);
                         });

// Find 2.0 first (shapes no other test uses, so it times and stores the record), then legacy
// Find on another handle reads that record: its results are Find 2.0's per algorithm, time for
// time.
TEST(Find2Conv, LegacyFindAfterFind2ReadsItsRecord) {
  for (const char* line : {"conv -n 3 -c 5 -H 17 -W 13 -k 7 -y 3 -x 3 -p 1 -q 1 -F 0",
                           "convfp16 -m trans -n 1 -c 6 -H 7 -W 9 -k 4 -y 3 -x 3 -p 1 -q 1 -u 2 "
                           "-v 2 -F 0"}) {
    SCOPED_TRACE(line);
    ConvSetup c(line);
    Handle h, legacy_h;
    for (const auto dir : directions_of(c.spec)) {
      SCOPED_TRACE(direction_label(dir));
      Find2Problem p = c.problem(dir);
      const Solutions sols = find_solutions(h, p);
      ASSERT_GT(sols.size(), 0u);
      std::vector<uint8_t> ws;
      expect_same_record(legacy_find(legacy_h, c, dir, ws), sols, dir);
    }
  }
}

TEST(Find2Conv, ResultsOrderAndMaxSolutions) {
  ConvSetup c("conv -n 2 -c 8 -H 12 -W 12 -k 8 -y 3 -x 3 -p 1 -q 1 -F 1");
  Handle h;
  Find2Problem p = c.problem(miopenProblemDirectionForward);
  const Solutions by_time = find_solutions(h, p);
  ASSERT_GE(by_time.size(), 2u);
  for (size_t i = 1; i < by_time.size(); ++i)
    EXPECT_LE(info_of(by_time[i - 1]).time, info_of(by_time[i]).time);
  FindOptions o;
  ASSERT_EQ(miopenSetFindOptionResultsOrder(o, miopenFindResultsOrderByWorkspaceSize),
            miopenStatusSuccess);
  const Solutions by_ws = find_solutions(h, p, o);
  ASSERT_EQ(by_ws.size(), by_time.size());
  for (size_t i = 1; i < by_ws.size(); ++i)
    EXPECT_LE(info_of(by_ws[i - 1]).workspace, info_of(by_ws[i]).workspace);
  // maxSolutions keeps the first ones of the order asked for.
  const Solutions one = find_solutions(h, p, o, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(info_of(one[0]).id, info_of(by_ws[0]).id);
  const Solutions fastest = find_solutions(h, p, nullptr, 1);
  ASSERT_EQ(fastest.size(), 1u);
  EXPECT_EQ(info_of(fastest[0]).id, info_of(by_time[0]).id);
}

// Solvers needing more workspace than the limit are left out, and a limited search leaves the
// record as it was: a later unlimited Find 2.0 gets the full set with the same times.
TEST(Find2Conv, WorkspaceLimitSkipsSolversAndKeepsTheRecord) {
  ConvSetup c("conv -n 2 -c 6 -H 11 -W 13 -k 5 -y 3 -x 3 -p 1 -q 1 -F 1");
  Handle h;
  Find2Problem p = c.problem(miopenProblemDirectionForward);
  const Solutions all = find_solutions(h, p);
  size_t need_ws = 0;
  for (size_t i = 0; i < all.size(); ++i)
    need_ws += info_of(all[i]).workspace > 0 ? 1 : 0;
  ASSERT_GT(need_ws, 0u) << "the problem must have a solver that needs workspace";
  for (const bool tuning : {false, true}) {
    SCOPED_TRACE(tuning ? "tuning" : "default");
    FindOptions o;
    ASSERT_EQ(miopenSetFindOptionWorkspaceLimit(o, 0), miopenStatusSuccess);
    ASSERT_EQ(miopenSetFindOptionTuning(o, tuning), miopenStatusSuccess);
    const Solutions limited = find_solutions(h, p, o);
    ASSERT_GT(limited.size(), 0u);
    for (size_t i = 0; i < limited.size(); ++i) {
      EXPECT_EQ(info_of(limited[i]).workspace, 0u);
      HostTensor out = c.output(miopenProblemDirectionForward);
      out.poison();
      ASSERT_EQ(run(h, limited[i], args_into(c, miopenProblemDirectionForward, out)),
                miopenStatusSuccess);
      EXPECT_LE(ref::relative_rms(c.reference(miopenProblemDirectionForward),
                                  ref::to_logical(out.view())),
                1.5e-6);
    }
  }
  Handle fresh;
  const Solutions again = find_solutions(fresh, p);
  ASSERT_EQ(again.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(info_of(again[i]).id, info_of(all[i]).id);
    EXPECT_EQ(info_of(again[i]).time, info_of(all[i]).time);
  }
}

// Buffers attached to the options are what Find runs on: the output buffer holds a result
// afterwards, the inputs are untouched, and a workspace too small for some solvers limits them.
TEST(Find2Conv, PreallocatedBuffersAreUsed) {
  for (const auto dir : {miopenProblemDirectionForward, miopenProblemDirectionBackward,
                         miopenProblemDirectionBackwardWeights}) {
    SCOPED_TRACE(direction_label(dir));
    ConvSetup c("conv -n 2 -c 4 -H 9 -W 10 -k 6 -y 3 -x 3 -p 1 -q 1 -F 0");
    Handle h;
    HostTensor out = c.output(dir);
    out.poison();
    const auto args = args_into(c, dir, out);
    FindOptions o;
    for (const auto& a : args)
      ASSERT_EQ(miopenSetFindOptionPreallocatedTensor(o, a.id, a.buffer), miopenStatusSuccess);
    std::vector<uint8_t> ws(1);  // too small for any solver that needs workspace
    ASSERT_EQ(miopenSetFindOptionPreallocatedWorkspace(o, ws.data(), ws.size()),
              miopenStatusSuccess);
    const HostTensor hx = c.hx, hw = c.hw, hy = c.hy;
    Find2Problem p = c.problem(dir);
    const Solutions sols = find_solutions(h, p, o);
    ASSERT_GT(sols.size(), 0u);
    for (size_t i = 0; i < sols.size(); ++i)
      EXPECT_EQ(info_of(sols[i]).workspace, 0u);
    EXPECT_LE(ref::relative_rms(c.reference(dir), ref::to_logical(out.view())), c.tolerance(dir));
    for (const auto* t : {&c.hx, &c.hw, &c.hy}) {
      if (t == &c.output(dir)) continue;
      const HostTensor& before = t == &c.hx ? hx : t == &c.hw ? hw : hy;
      EXPECT_EQ(t->bytes, before.bytes) << "Find wrote an input";
    }
  }
}

// A saved solution loads back with the same attributes, its blob is exactly GetSolutionSize
// bytes, and the loaded one runs (on another handle) to the same bits.
TEST(Find2Conv, SaveLoadRoundTrip) {
  for (const char* line :
       {"conv -n 2 -c 6 -H 9 -W 11 -k 4 -y 3 -x 3 -p 1 -q 1 -g 2 -F 0",
        "convbfp16 -n 1 -c 3 --in_d 4 -H 6 -W 6 -k 2 --fil_d 2 -y 3 -x 3 -p 1 -q 1 --spatial_dim 3 "
        "-F 0",
        "conv -m trans -n 2 -c 6 -H 5 -W 7 -k 4 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -Y 1 -X 0 -F 0",
        "conv -n 2 -c 5 -H 11 -W 9 -k 6 -y 3 -x 3 -p 1 -q 1 -u 2 -v 1 -F 0 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC"}) {
    SCOPED_TRACE(line);
    ConvSetup c(line);
    Handle h, other;
    for (const auto dir : directions_of(c.spec)) {
      SCOPED_TRACE(direction_label(dir));
      Find2Problem p = c.problem(dir);
      const Solutions sols = find_solutions(h, p);
      for (size_t i = 0; i < sols.size(); ++i) {
        const SolutionInfo before = info_of(sols[i]);
        size_t size = 0;
        ASSERT_EQ(miopenGetSolutionSize(sols[i], &size), miopenStatusSuccess);
        std::vector<char> blob(size + 64, '\x5a');
        ASSERT_EQ(miopenSaveSolution(sols[i], blob.data()), miopenStatusSuccess);
        EXPECT_EQ(std::count(blob.begin() + static_cast<long>(size), blob.end(), '\x5a'), 64)
            << "miopenSaveSolution wrote past GetSolutionSize";
        miopenSolution_t loaded = nullptr;
        ASSERT_EQ(miopenLoadSolution(&loaded, blob.data(), size), miopenStatusSuccess);
        const SolutionInfo after = info_of(loaded);
        EXPECT_EQ(after.id, before.id);
        EXPECT_EQ(after.time, before.time);
        EXPECT_EQ(after.workspace, before.workspace);
        EXPECT_EQ(save(loaded), save(sols[i])) << "save(load(blob)) is the blob";
        HostTensor a = c.output(dir), b = c.output(dir);
        a.poison();
        b.poison();
        ASSERT_EQ(run(h, sols[i], args_into(c, dir, a)), miopenStatusSuccess);
        ASSERT_EQ(run(other, loaded, args_into(c, dir, b)), miopenStatusSuccess);
        EXPECT_EQ(a.bytes, b.bytes);
        EXPECT_EQ(miopenDestroySolution(loaded), miopenStatusSuccess);
      }
    }
  }
}

// miopenGetSolverIdConvAlgorithm needs no handle and answers every solution's id with the
// algorithm immediate mode lists for that solver.
TEST(Find2Conv, SolverIdConvAlgorithm) {
  ConvSetup c("conv -n 2 -c 8 -H 10 -W 10 -k 8 -y 3 -x 3 -p 1 -q 1 -F 0");
  Handle h;
  miopenConvSolution_t imm[32];
  size_t n = 0;
  ASSERT_EQ(miopenConvolutionForwardGetSolution(h, c.w, c.x, c.conv, c.y, 32, &n, imm),
            miopenStatusSuccess);
  ASSERT_GT(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    miopenConvAlgorithm_t a;
    ASSERT_EQ(miopenGetSolverIdConvAlgorithm(imm[i].solution_id, &a), miopenStatusSuccess);
    EXPECT_EQ(a, imm[i].algorithm) << imm[i].solution_id;
  }
  miopenConvAlgorithm_t a;
  expect_failure(miopenStatusInvalidValue, "miopenGetSolverIdConvAlgorithm", "not a convolution",
                 [&] { return miopenGetSolverIdConvAlgorithm(999999, &a); });
  expect_failure(miopenStatusInvalidValue, "miopenGetSolverIdConvAlgorithm", "not a convolution",
                 [&] { return miopenGetSolverIdConvAlgorithm(0, &a); });
  expect_failure(miopenStatusBadParm, "miopenGetSolverIdConvAlgorithm", "result",
                 [&] { return miopenGetSolverIdConvAlgorithm(imm[0].solution_id, nullptr); });
}

}  // namespace
}  // namespace anydnn::test
