// Multi-head attention through Find 2.0's public C API, as MIOpen's test_gtest_mha_find20 drives
// it: an MHA descriptor and problem per direction, every tensor descriptor (the bias in both
// directions, as MIOpen's test sets it), miopenFindSolutions, the solution attributes, and
// miopenRunSolution of every solution with the buffers and the mask scalar; outputs (poisoned
// first) against the double reference (reference/mha_reference.hpp). Also: a run without the
// mask (MIOpen's gpu_mha tests pass none), a saved and loaded solution, and the failures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include "find2_test_util.hpp"
#include "mha_reference.hpp"

namespace anydnn::test {
namespace {

using Id = miopenTensorArgumentId_t;

// One fp32 tensor of the call: its descriptor and host data.
struct HostData {
  std::unique_ptr<Tensor> t;
  std::vector<float> v;
};

struct MhaCall {
  int n = 2, h = 4, s = 8, d = 16;  // MIOpen's find20 shape
  float scale = 1.0f, dropout = 0.0f;
  miopenMhaMask_t mask = miopenMhaMaskNone;
  bool forward = true;
  std::map<Id, HostData> t;
  uint64_t seed = 0, offset = 0;
  Tensor seed_desc{miopenInt64, {1, 1, 1, 1}}, offset_desc{miopenInt64, {1, 1, 1, 1}};

  std::vector<float>& operator[](Id id) { return t.at(id).v; }
  void add(Id id, std::vector<int> lens, std::mt19937& rng, float lo, float hi) {
    HostData& h = t[id];
    h.t = std::make_unique<Tensor>(miopenFloat, lens);
    size_t count = 1;
    for (int l : lens)
      count *= static_cast<size_t>(l);
    h.v = random_floats(rng, count, lo, hi);
  }
  void scalar(Id id, float v) {
    t[id].t = std::make_unique<Tensor>(miopenFloat, std::vector<int>{1, 1, 1, 1});
    t[id].v = {v};
  }
  ref::MhaShape shape() const {
    const auto z = [](int v) { return static_cast<size_t>(v); };
    return {z(n), z(h), z(s), z(s), z(d), z(d)};
  }
  static std::vector<double> dbl(const std::vector<float>& v) { return {v.begin(), v.end()}; }
  ref::MhaParams params(bool causal) {
    ref::MhaParams p;
    p.scale = scale;
    p.causal = causal;
    p.dropout = dropout;
    p.seed = seed;
    p.offset = offset;
    auto get = [&](Id id) { return t.count(id) != 0 ? static_cast<double>(t.at(id).v[0]) : 1.0; };
    p.descale_q = get(miopenTensorMhaDescaleQ);
    p.descale_k = get(miopenTensorMhaDescaleK);
    p.descale_v = get(miopenTensorMhaDescaleV);
    p.descale_s = get(miopenTensorMhaDescaleS);
    p.scale_s = get(miopenTensorMhaScaleS);
    p.scale_o = get(miopenTensorMhaScaleO);
    p.descale_o = get(miopenTensorMhaDescaleO);
    p.descale_do = get(miopenTensorMhaDescaleDO);
    p.descale_ds = get(miopenTensorMhaDescaleDS);
    p.scale_ds = get(miopenTensorMhaScaleDS);
    p.scale_dq = get(miopenTensorMhaScaleDQ);
    p.scale_dk = get(miopenTensorMhaScaleDK);
    p.scale_dv = get(miopenTensorMhaScaleDV);
    return p;
  }

  // MIOpen's MhaFind20Test::Initialize, plus random data for its inputs.
  MhaCall(bool fwd, float drop, std::mt19937& rng) : dropout(drop), forward(fwd) {
    seed = rng();
    offset = rng() % 100;
    add(miopenTensorMhaK, {n, h, s, d}, rng, -1, 1);
    add(miopenTensorMhaV, {n, h, s, d}, rng, -1, 1);
    add(miopenTensorMhaQ, {n, h, s, d}, rng, -1, 1);
    add(miopenTensorMhaBias, {n, h, s, s}, rng, -1, 1);
    for (const Id id : {miopenTensorMhaDescaleK, miopenTensorMhaDescaleQ, miopenTensorMhaDescaleV,
                        miopenTensorMhaDescaleS, miopenTensorMhaScaleS})
      scalar(id, 1.0f);
    scalar(miopenTensorMhaDropoutProbability, dropout);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    if (fwd) {
      scalar(miopenTensorMhaScaleO, 1.0f);
      add(miopenTensorMhaO, {n, h, s, d}, rng, 0, 0);
      scalar(miopenTensorMhaAmaxO, 0);
      scalar(miopenTensorMhaAmaxS, 0);
      add(miopenTensorMhaM, {n, h, s, 1}, rng, 0, 0);
      add(miopenTensorMhaZInv, {n, h, s, 1}, rng, 0, 0);
    } else {
      add(miopenTensorMhaO, {n, h, s, d}, rng, 0, 0);
      add(miopenTensorMhaDO, {n, h, s, d}, rng, -1, 1);
      add(miopenTensorMhaM, {n, h, s, 1}, rng, 0, 0);
      add(miopenTensorMhaZInv, {n, h, s, 1}, rng, 0, 0);
      for (const Id id : {miopenTensorMhaDescaleO, miopenTensorMhaDescaleDO,
                          miopenTensorMhaDescaleDS, miopenTensorMhaScaleDS, miopenTensorMhaScaleDQ,
                          miopenTensorMhaScaleDK, miopenTensorMhaScaleDV})
        scalar(id, u(rng));
      add(miopenTensorMhaDQ, {n, h, s, d}, rng, 0, 0);
      add(miopenTensorMhaDK, {n, h, s, d}, rng, 0, 0);
      add(miopenTensorMhaDV, {n, h, s, d}, rng, 0, 0);
      for (const Id id : {miopenTensorMhaAmaxDQ, miopenTensorMhaAmaxDK, miopenTensorMhaAmaxDV,
                          miopenTensorMhaAmaxDS})
        scalar(id, 0);
    }
  }

  // Backward's O, M and ZInv: what the forward leaves for `causal` (MIOpen's test passes
  // random ones; a softmax's statistics keep the gradient meaningful).
  void forward_state(bool causal) {
    const ref::MhaForwardResult f = ref::mha_forward(
        shape(), params(causal), dbl((*this)[miopenTensorMhaQ]), dbl((*this)[miopenTensorMhaK]),
        dbl((*this)[miopenTensorMhaV]), dbl((*this)[miopenTensorMhaBias]));
    for (size_t i = 0; i < f.o.size(); ++i)
      (*this)[miopenTensorMhaO][i] = static_cast<float>(f.o[i]);
    for (size_t i = 0; i < f.m.size(); ++i) {
      (*this)[miopenTensorMhaM][i] = static_cast<float>(f.m[i]);
      (*this)[miopenTensorMhaZInv][i] = static_cast<float>(f.zinv[i]);
    }
  }

  Find2Problem problem(miopenMhaDescriptor_t desc) {
    miopenProblem_t raw = nullptr;
    EXPECT_EQ(
        miopenCreateMhaProblem(
            &raw, desc, forward ? miopenProblemDirectionForward : miopenProblemDirectionBackward),
        miopenStatusSuccess);
    Find2Problem p(raw);
    for (auto& [id, h] : t)
      p.set(id, *h.t);
    p.set(miopenTensorMhaDropoutSeed, seed_desc);
    p.set(miopenTensorMhaDropoutOffset, offset_desc);
    return p;
  }

  std::vector<Id> outputs() const {
    if (forward)
      return {miopenTensorMhaO, miopenTensorMhaAmaxO, miopenTensorMhaAmaxS, miopenTensorMhaM,
              miopenTensorMhaZInv};
    return {miopenTensorMhaDQ,     miopenTensorMhaDK,     miopenTensorMhaDV,
            miopenTensorMhaAmaxDQ, miopenTensorMhaAmaxDK, miopenTensorMhaAmaxDV,
            miopenTensorMhaAmaxDS};
  }
  void poison() {
    for (const Id id : outputs())
      std::fill(t.at(id).v.begin(), t.at(id).v.end(), std::nanf(""));
  }
  // Every tensor, and the mask unless `with_mask` is false.
  std::vector<miopenTensorArgument_t> args(bool with_mask = true) {
    std::vector<miopenTensorArgument_t> a;
    for (auto& [id, h] : t)
      a.push_back({id, nullptr, h.v.data()});
    a.push_back({miopenTensorMhaDropoutSeed, nullptr, &seed});
    a.push_back({miopenTensorMhaDropoutOffset, nullptr, &offset});
    if (with_mask) a.push_back({miopenTensorMhaMask, nullptr, &mask});
    return a;
  }

  // The outputs against the reference for the mask in effect.
  void check(bool causal) {
    const double tol = forward ? 2e-5 : 5e-5;
    auto close = [&](Id id, const std::vector<double>& want) {
      EXPECT_LE(ref::max_relative_error(want, (*this)[id]), tol) << id;
    };
    auto amax = [&](Id id, double want) {
      EXPECT_NEAR((*this)[id][0], want, tol * std::abs(want) + 1e-30) << id;
    };
    const auto q = dbl((*this)[miopenTensorMhaQ]), k = dbl((*this)[miopenTensorMhaK]),
               v = dbl((*this)[miopenTensorMhaV]), bias = dbl((*this)[miopenTensorMhaBias]);
    if (forward) {
      const ref::MhaForwardResult f = ref::mha_forward(shape(), params(causal), q, k, v, bias);
      close(miopenTensorMhaO, f.o);
      close(miopenTensorMhaM, f.m);
      close(miopenTensorMhaZInv, f.zinv);
      amax(miopenTensorMhaAmaxO, f.amax_o);
      amax(miopenTensorMhaAmaxS, f.amax_s);
    } else {
      const ref::MhaBackwardResult b =
          ref::mha_backward(shape(), params(causal), q, k, v, dbl((*this)[miopenTensorMhaO]),
                            dbl((*this)[miopenTensorMhaDO]), dbl((*this)[miopenTensorMhaM]),
                            dbl((*this)[miopenTensorMhaZInv]), bias);
      close(miopenTensorMhaDQ, b.dq);
      close(miopenTensorMhaDK, b.dk);
      close(miopenTensorMhaDV, b.dv);
      amax(miopenTensorMhaAmaxDQ, b.amax_dq);
      amax(miopenTensorMhaAmaxDK, b.amax_dk);
      amax(miopenTensorMhaAmaxDV, b.amax_dv);
      amax(miopenTensorMhaAmaxDS, b.amax_ds);
    }
  }
};

struct MhaDesc {
  miopenMhaDescriptor_t d = nullptr;
  explicit MhaDesc(float scale) {
    EXPECT_EQ(miopenCreateMhaDescriptor(&d), miopenStatusSuccess);
    leaked_by_design(d);
    EXPECT_EQ(miopenSetMhaDescriptor(d, scale), miopenStatusSuccess);
  }
  operator miopenMhaDescriptor_t() const { return d; }
};

class MhaFind20 : public ::testing::TestWithParam<bool> {};

// MIOpen's GPU_TestMhaFind20_FP32 flow in each direction, with the causal mask and without,
// with dropout 0 and 0.25 and the scale of the descriptor.
TEST_P(MhaFind20, FindsRunsAndMatchesTheReference) {
  const bool fwd = GetParam();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  for (const float dropout : {0.0f, 0.25f})
    for (const float scale : {1.0f, 0.25f}) {
      SCOPED_TRACE("dropout " + std::to_string(dropout) + ", scale " + std::to_string(scale));
      MhaCall c(fwd, dropout, rng);
      c.scale = scale;
      MhaDesc desc(scale);
      Find2Problem p = c.problem(desc);
      const Solutions sols = find_solutions(h, p);
      ASSERT_GT(sols.size(), 0u);
      for (size_t i = 0; i < sols.size(); ++i) {
        const SolutionInfo info = info_of(sols[i]);
        EXPECT_GE(info.time, 0.0f);
        EXPECT_EQ(info.id >> 32, 5u) << "MHA solver ids are tagged with family 5";
        for (const miopenMhaMask_t mask : {miopenMhaMaskNone, miopenMhaMaskCausal}) {
          SCOPED_TRACE("solver id " + std::to_string(info.id) + ", mask " + std::to_string(mask));
          c.mask = mask;
          if (!fwd) c.forward_state(mask == miopenMhaMaskCausal);
          c.poison();
          ASSERT_EQ(run(h, sols[i], c.args()), miopenStatusSuccess);
          c.check(mask == miopenMhaMaskCausal);
        }
        // MIOpen's gpu_mha tests pass no mask: none applies.
        if (!fwd) c.forward_state(false);
        c.poison();
        ASSERT_EQ(run(h, sols[i], c.args(false)), miopenStatusSuccess);
        c.check(false);
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Directions, MhaFind20, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Forward" : "Backward"; });

// A saved solution loads and runs with the same bytes as the original.
TEST(MhaFind20Blob, LoadedSolutionGivesTheSameOutputs) {
  std::mt19937 rng(fresh_seed());
  Handle h;
  for (const bool fwd : {true, false}) {
    MhaCall c(fwd, 0.3f, rng);
    c.mask = miopenMhaMaskCausal;
    if (!fwd) c.forward_state(true);
    MhaDesc desc(0.5f);
    c.scale = 0.5f;
    Find2Problem p = c.problem(desc);
    const Solutions sols = find_solutions(h, p);
    ASSERT_GT(sols.size(), 0u);
    c.poison();
    ASSERT_EQ(run(h, sols[0], c.args()), miopenStatusSuccess);
    c.check(true);
    std::map<Id, std::vector<float>> first;
    for (const Id id : c.outputs())
      first[id] = c[id];
    const std::vector<char> blob = save(sols[0]);
    miopenSolution_t loaded = nullptr;
    ASSERT_EQ(miopenLoadSolution(&loaded, blob.data(), blob.size()), miopenStatusSuccess);
    c.poison();
    ASSERT_EQ(run(h, loaded, c.args()), miopenStatusSuccess);
    for (const Id id : c.outputs())
      EXPECT_EQ(std::memcmp(first[id].data(), c[id].data(), first[id].size() * sizeof(float)), 0)
          << id;
    miopenDestroySolution(loaded);
  }
}

TEST(MhaFind20Failures, ProblemsAndRuns) {
  std::mt19937 rng(fresh_seed());
  Handle h;
  MhaDesc desc(1.0f);
  MhaCall c(true, 0.0f, rng);
  Find2Problem p = c.problem(desc);
  // A tensor of the other direction is refused when it is set.
  Tensor big(miopenFloat, {2, 4, 8, 16});
  expect_failure(miopenStatusBadParm, "miopenSetProblemTensorDescriptor",
                 "miopenTensorMhaDQ is not an argument of a forward",
                 [&] { return miopenSetProblemTensorDescriptor(p, miopenTensorMhaDQ, big); });
  // Find on a problem missing K: MIOpen's status and words.
  miopenProblem_t raw = nullptr;
  ASSERT_EQ(miopenCreateMhaProblem(&raw, desc, miopenProblemDirectionForward), miopenStatusSuccess);
  Find2Problem partial(raw);
  partial.set(miopenTensorMhaQ, *c.t.at(miopenTensorMhaQ).t);
  std::vector<miopenSolution_t> out(4, nullptr);
  size_t found = 0;
  expect_failure(miopenStatusInvalidValue, "miopenFindSolutions",
                 "Problem is missing miopenTensorMhaK tensor descriptor.",
                 [&] { return miopenFindSolutions(h, partial, nullptr, out.data(), &found, 4); });
  // A V of another length.
  ASSERT_EQ(miopenCreateMhaProblem(&raw, desc, miopenProblemDirectionForward), miopenStatusSuccess);
  Find2Problem bad(raw);
  for (auto& [id, t] : c.t)
    if (id != miopenTensorMhaV) bad.set(id, *t.t);
  bad.set(miopenTensorMhaDropoutSeed, c.seed_desc);
  bad.set(miopenTensorMhaDropoutOffset, c.offset_desc);
  Tensor v7(miopenFloat, {2, 4, 7, 16});
  bad.set(miopenTensorMhaV, v7);
  expect_failure(miopenStatusBadParm, "miopenFindSolutions", "miopenTensorMhaV is 2x4x7x16",
                 [&] { return miopenFindSolutions(h, bad, nullptr, out.data(), &found, 4); });
  // Runs: a mask that is not a miopenMhaMask_t, a missing argument, a short workspace.
  const Solutions sols = find_solutions(h, p);
  ASSERT_GT(sols.size(), 0u);
  c.mask = static_cast<miopenMhaMask_t>(7);
  expect_failure(miopenStatusBadParm, "miopenRunSolution", "not a miopenMhaMask_t",
                 [&] { return run(h, sols[0], c.args()); });
  c.mask = miopenMhaMaskNone;
  auto args = c.args();
  args.erase(args.begin());  // the first tensor (K)
  expect_failure(miopenStatusInvalidValue, "miopenRunSolution", "no buffer for",
                 [&] { return run(h, sols[0], args); });
  size_t need = 0;
  ASSERT_EQ(miopenGetSolutionWorkspaceSize(sols[0], &need), miopenStatusSuccess);
  if (need > 0) {
    std::vector<uint8_t> ws(need - 1);
    const auto full = c.args();
    expect_failure(miopenStatusBadParm, "miopenRunSolution", "workspace", [&] {
      return miopenRunSolution(h, sols[0], full.size(), full.data(), ws.data(), ws.size());
    });
  }
  // fp8 data: NotImplemented at Find, with the reason.
  ASSERT_EQ(miopenCreateMhaProblem(&raw, desc, miopenProblemDirectionForward), miopenStatusSuccess);
  Find2Problem fp8(raw);
  Tensor q8(miopenFloat8, {2, 4, 8, 16});
  for (auto& [id, t] : c.t) {
    const bool data = id == miopenTensorMhaQ || id == miopenTensorMhaK || id == miopenTensorMhaV ||
                      id == miopenTensorMhaO;
    fp8.set(id, data ? static_cast<miopenTensorDescriptor_t>(q8) : *t.t);
  }
  fp8.set(miopenTensorMhaDropoutSeed, c.seed_desc);
  fp8.set(miopenTensorMhaDropoutOffset, c.offset_desc);
  expect_failure(miopenStatusNotImplemented, "miopenFindSolutions", "fp8",
                 [&] { return miopenFindSolutions(h, fp8, nullptr, out.data(), &found, 4); });
}

}  // namespace
}  // namespace anydnn::test
