// Every CPU multi-head-attention solver, alone, on every case of tests/mha_test_cases.hpp it
// declares applicable (both masks, dropout, bias, strides, fp16 / bf16; forward and backward),
// once per instruction set the CPU has, against the double reference with NaN-poisoned outputs.
// Plus: the reference against finite differences, the dropout mask against the dropout API's
// generator, the problem's validation and key, and the front-end (argument checks, workspace).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/cpu_isa.hpp"
#include "core/dropout_descriptor.hpp"
#include "core/errors.hpp"
#include "handle/handle.hpp"
#include "mha/mha_ops.hpp"
#include "mha/mha_solver.hpp"
#include "mha_test_cases.hpp"

namespace anydnn {
namespace {

using T = MhaTensor;

std::vector<std::string> every_cpu_mha_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<std::string> out;
  for (const auto& e : backend->solvers<MhaSolver>().entries())
    out.emplace_back(e.solver->name());
  return out;
}

// Runs a solver on host buffers through mha_buffers (so the argument list is checked too).
test::MhaRunner host_runner(const MhaSolver& s, const ExecutionContext& ctx) {
  return [&s, &ctx](const MhaProblem& p, test::MhaHostCall& call) {
    const MhaBuffers b =
        mha_buffers(p, call.arguments([](MhaTensor, driver::HostTensor& h) { return h.data(); }));
    std::vector<unsigned char> ws(s.workspace_size(ctx, p), 0xff);
    s.run(ctx, p, b, ws.empty() ? nullptr : ws.data());
  };
}

class MhaSolverAlone : public ::testing::TestWithParam<std::string> {};

// One test per solver, named after it (--gtest_filter='*MhaNaiveBackward*' runs one).
TEST_P(MhaSolverAlone, MatchesReferenceOnEveryCaseItTakes) {
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  int ran = 0;
  for (const CpuIsa isa : supported_cpu_isas()) {
    SCOPED_TRACE(cpu_isa_name(isa));
    Config cfg;
    cfg.num_threads = 2;
    cfg.cpu_isa = isa;
    auto backend = make_cpu_backend(cfg);
    const ExecutionContext ctx{cfg, *backend};
    const auto* entry = backend->solvers<MhaSolver>().find(solver);
    ASSERT_NE(entry, nullptr);
    const MhaSolver& s = *entry->solver;
    const test::MhaRunner run = host_runner(s, ctx);
    for (const test::MhaCase& c : test::mha_cases())
      for (const MhaDirection dir : {MhaDirection::Forward, MhaDirection::Backward}) {
        const MhaProblem p = test::mha_problem(c, dir);
        const Applicability a = s.applicable(ctx, p);
        // Promise: on the CPU every solver takes every problem of its direction (the GEMM
        // solvers stage operands they cannot read in place).
        const bool own =
            (dir == MhaDirection::Forward) == (solver.find("Forward") != std::string::npos);
        EXPECT_EQ(static_cast<bool>(a), own) << c.name << ": " << a.reason;
        if (!a) {
          EXPECT_FALSE(a.reason.empty());
          continue;
        }
        test::check_mha(c, dir, rng, run);
        ++ran;
      }
  }
  EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, MhaSolverAlone, ::testing::ValuesIn(every_cpu_mha_solver()),
                         [](const auto& info) { return info.param; });

// More threads than (n, h) slices, and fewer: the backward's two schedules, the forward's
// task split; the same answers.
TEST(MhaSolvers, ThreadCountsGiveTheSameAnswers) {
  std::mt19937 rng(test::fresh_seed());
  for (const int threads : {1, 3, 8}) {
    Config cfg;
    cfg.num_threads = threads;
    cfg.cpu_isa = best_cpu_isa();
    auto backend = make_cpu_backend(cfg);
    const ExecutionContext ctx{cfg, *backend};
    for (const char* name : {"MhaForward", "MhaBackward"}) {
      const MhaSolver& s = *backend->solvers<MhaSolver>().find(name)->solver;
      test::MhaCase c{"threads", 1, 2, 67, 67, 8, 8, miopenFloat, true, 0.2f, {1, 2, 67, 67}};
      const MhaDirection dir =
          std::string(name) == "MhaForward" ? MhaDirection::Forward : MhaDirection::Backward;
      SCOPED_TRACE(std::string(name) + " threads " + std::to_string(threads));
      test::check_mha(c, dir, rng, host_runner(s, ctx));
    }
  }
}

// The reference's backward is the gradient of sum(dO * O) of its forward: central differences
// in double on a tiny case with bias, causal mask, dropout and a scale.
TEST(MhaReference, BackwardMatchesFiniteDifferences) {
  std::mt19937 rng(test::fresh_seed());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const ref::MhaShape s{1, 2, 5, 4, 3, 2};
  for (const bool causal : {false, true})
    for (const float dropout : {0.0f, 0.4f}) {
      SCOPED_TRACE(std::string(causal ? "causal" : "no mask") + " dropout " +
                   std::to_string(dropout));
      ref::MhaParams p;
      p.scale = 0.7;
      p.causal = causal;
      p.dropout = dropout;
      p.seed = 99;
      p.offset = 3;
      auto draw = [&](size_t n) {
        std::vector<double> v(n);
        for (double& x : v)
          x = u(rng);
        return v;
      };
      std::vector<double> q = draw(2 * 5 * 3), k = draw(2 * 4 * 3), v = draw(2 * 4 * 2),
                          bias = draw(2 * 5 * 4), d_o = draw(2 * 5 * 2);
      const ref::MhaForwardResult f = ref::mha_forward(s, p, q, k, v, bias);
      const ref::MhaBackwardResult g =
          ref::mha_backward(s, p, q, k, v, f.o, d_o, f.m, f.zinv, bias);
      auto loss = [&] {
        const auto o = ref::mha_forward(s, p, q, k, v, bias).o;
        double l = 0.0;
        for (size_t i = 0; i < o.size(); ++i)
          l += o[i] * d_o[i];
        return l;
      };
      auto check = [&](std::vector<double>& x, const std::vector<double>& grad, const char* name) {
        for (size_t i = 0; i < x.size(); ++i) {
          const double keep = x[i], h = 1e-6;
          x[i] = keep + h;
          const double up = loss();
          x[i] = keep - h;
          const double down = loss();
          x[i] = keep;
          EXPECT_NEAR(grad[i], (up - down) / (2 * h), 1e-7) << name << "[" << i << "]";
        }
      };
      check(q, g.dq, "dQ");
      check(k, g.dk, "dK");
      check(v, g.dv, "dV");
    }
}

// The attention dropout mask is the dropout API's generator with the offset as its counter.
TEST(MhaDropout, MaskIsTheDropoutApisGenerator) {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 20; ++trial) {
    mha::Scalars s;
    s.seed = rng();
    s.offset = rng() % 1000;
    s.dropout = static_cast<float>(trial) / 20.0f;
    const mha::Dropout d = mha::make_dropout(s);
    int kept = 0;
    for (uint64_t e = 0; e < 2000; ++e) {
      const bool k = mha::keep(d, e);
      EXPECT_EQ(k, DropoutDescriptor::keep(s.seed, s.offset, e, s.dropout)) << e;
      kept += k;
    }
    EXPECT_NEAR(kept / 2000.0, 1.0 - s.dropout, 0.05);
  }
  mha::Scalars all;
  all.dropout = 1.0f;
  EXPECT_FALSE(mha::keep(mha::make_dropout(all), 7));
  all.dropout = NAN;  // no dropout
  EXPECT_TRUE(mha::keep(mha::make_dropout(all), 7));
}

TEST(MhaProblem, KeyConfigAndShape) {
  test::MhaCase c{"k", 2, 4, 8, 6, 16, 12, miopenHalf, false, 0.0f, {1, 1, 8, 6}};
  c.scale = 0.25f;
  const MhaProblem f = test::mha_problem(c, MhaDirection::Forward);
  EXPECT_EQ(f.key(), "mhafp16 -F 1 -n 2 -H 4 -s 8 -S 6 -d 16 -D 12 -c 0.250000 -B 1");
  EXPECT_EQ(f.config(), f.key() + " bias:1x1x8x6 bias_type:float");
  EXPECT_EQ(f.seq_q(), 8);
  EXPECT_EQ(f.seq_k(), 6);
  EXPECT_EQ(f.value_dim(), 12);
  EXPECT_EQ(f.strides(T::Bias).n, 0);
  c.type = miopenFloat;
  c.bias.clear();
  c.layout = test::MhaLayout::Bshd;
  const MhaProblem b = test::mha_problem(c, MhaDirection::Backward);
  EXPECT_EQ(b.key(), "mha -F 2 -n 2 -H 4 -s 8 -S 6 -d 16 -D 12 -c 0.250000 -B 0");
  EXPECT_NE(b.config().find(" Q:512,16,64,1"), std::string::npos) << b.config();
  EXPECT_TRUE(b.rows_contiguous(T::Q));
}

// Each invalid problem: its status and a reason naming the tensor.
TEST(MhaProblem, RejectsBadProblemsWithAReason) {
  const test::MhaCase c{"bad", 2, 3, 5, 5, 4, 4};
  auto expect = [&](MhaDirection dir, const std::function<void(MhaProblem::Descriptors&)>& edit,
                    miopenStatus_t status, const std::string& words, float scale = 1.0f) {
    MhaProblem::Descriptors d = test::mha_descriptors(c, dir);
    edit(d);
    try {
      MhaProblem(dir, scale, d);
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), status) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const auto fwd = MhaDirection::Forward, bwd = MhaDirection::Backward;
  const auto bad = miopenStatusBadParm;
  const auto missing = miopenStatusInvalidValue;  // MIOpen's GetTensorDescriptorChecked
  auto set = [](T t, TensorDescriptor d) {
    return [t, d](MhaProblem::Descriptors& m) { m.insert_or_assign(t, d); };
  };
  expect(
      fwd, [](auto& d) { d.erase(T::Q); }, missing, "missing miopenTensorMhaQ");
  expect(
      fwd, [](auto& d) { d.erase(T::ScaleO); }, missing, "missing miopenTensorMhaScaleO");
  expect(
      bwd, [](auto& d) { d.erase(T::DO); }, missing, "missing miopenTensorMhaDO");
  expect(
      bwd, [](auto& d) { d.erase(T::AmaxDS); }, missing, "missing miopenTensorMhaAmaxDS");
  expect(fwd, set(T::DQ, TensorDescriptor(miopenFloat, {2, 3, 5, 4})), bad,
         "miopenTensorMhaDQ is not a tensor of a forward");
  expect(bwd, set(T::AmaxO, TensorDescriptor(miopenFloat, {1, 1, 1, 1})), bad,
         "miopenTensorMhaAmaxO is not a tensor of a backward");
  expect(fwd, set(T::K, TensorDescriptor(miopenFloat, {2, 3, 5, 5})), bad, "miopenTensorMhaK is");
  expect(fwd, set(T::V, TensorDescriptor(miopenFloat, {2, 3, 6, 4})), bad, "miopenTensorMhaV is");
  expect(fwd, set(T::O, TensorDescriptor(miopenFloat, {2, 3, 5, 3})), bad, "miopenTensorMhaO is");
  expect(fwd, set(T::M, TensorDescriptor(miopenFloat, {2, 3, 5, 2})), bad, "miopenTensorMhaM is");
  expect(fwd, set(T::Q, TensorDescriptor(miopenFloat, {2, 3, 5})), bad, "4-D");
  expect(bwd, set(T::DK, TensorDescriptor(miopenFloat, {2, 3, 4, 4})), bad, "miopenTensorMhaDK");
  expect(fwd, set(T::Bias, TensorDescriptor(miopenFloat, {2, 3, 5, 4})), bad,
         "miopenTensorMhaBias is");
  expect(fwd, set(T::V, TensorDescriptor(miopenHalf, {2, 3, 5, 4})), bad,
         "miopenTensorMhaV is FP16");
  expect(fwd, set(T::ZInv, TensorDescriptor(miopenHalf, {2, 3, 5, 1})), bad, "must be float");
  expect(fwd, set(T::Bias, TensorDescriptor(miopenInt32, {2, 3, 5, 5})), bad,
         "float or the data type");
  expect(fwd, set(T::DescaleQ, TensorDescriptor(miopenFloat, {1, 2, 1, 1})), bad, "one element");
  expect(fwd, set(T::DropoutSeed, TensorDescriptor(miopenInt32, {1, 1, 1, 1})), bad,
         "must be INT64");
  expect(fwd, set(T::AmaxS, TensorDescriptor(miopenHalf, {1})), bad, "must be FP32");
  expect(fwd, set(T::O, TensorDescriptor(miopenFloat, {2, 3, 5, 4}, {1, 1, 1, 1})), bad, "overlap");
  expect(
      fwd, [](auto&) {}, bad, "not finite", NAN);
  auto retype = [](std::vector<T> ts, miopenDataType_t type) {
    return [ts, type](MhaProblem::Descriptors& m) {
      for (T t : ts) {
        const TensorDescriptor& d = m.at(t);
        m.insert_or_assign(t, TensorDescriptor(type, d.lens(), d.strides()));
      }
    };
  };
  expect(fwd, retype({T::Q, T::K, T::V, T::O}, miopenFloat8), miopenStatusNotImplemented, "fp8");
  expect(fwd, retype({T::Q, T::K, T::V, T::O}, miopenInt32), miopenStatusNotImplemented,
         "float, half and bfloat16");
}

// The front-end: the solver list per direction, the argument checks, the workspace check.
TEST(MhaOps, ListsRunsAndChecksArguments) {
  Config cfg;
  cfg.num_threads = 2;
  cfg.backend = BackendKind::Cpu;
  Handle handle(cfg, nullptr);
  const test::MhaCase c{"ops", 1, 2, 6, 6, 4, 4, miopenFloat, true, 0.25f, {1, 2, 6, 6}};
  std::mt19937 rng(test::fresh_seed());
  for (const MhaDirection dir : {MhaDirection::Forward, MhaDirection::Backward}) {
    const bool fwd = dir == MhaDirection::Forward;
    const MhaProblem p = test::mha_problem(c, dir);
    const auto list = applicable_mha_solvers(handle, p);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]->solver->name(), fwd ? "MhaForward" : "MhaBackward");
    EXPECT_EQ(&select_mha_solver(handle, p), list[0]);
    const size_t need = mha_workspace_size(handle, p, *list[0]);
    EXPECT_GT(need, 0u);
    const test::MhaRunner run = [&](const MhaProblem& pr, test::MhaHostCall& call) {
      auto args = call.arguments([](MhaTensor, driver::HostTensor& h) { return h.data(); });
      const MhaBuffers b = mha_buffers(pr, args);
      EXPECT_TRUE(b.causal());
      std::vector<unsigned char> ws(need);
      try {
        mha_run(handle, pr, *list[0], b, ws.data(), need - 1);
        ADD_FAILURE() << "a short workspace was accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.status(), miopenStatusBadParm);
        EXPECT_NE(std::string(e.what()).find("too small"), std::string::npos) << e.what();
      }
      mha_run(handle, pr, *list[0], b, ws.data(), ws.size());
    };
    test::check_mha(c, dir, rng, run);

    // Argument errors, each before anything runs.
    test::MhaHostCall call;
    test::mha_fill(c, p, call, rng);
    const auto good = call.arguments([](MhaTensor, driver::HostTensor& h) { return h.data(); });
    auto status = [&](std::vector<MhaArgument> args, const std::string& words) {
      try {
        mha_buffers(p, args);
        ADD_FAILURE() << "accepted; expected: " << words;
        return miopenStatusSuccess;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        return e.status();
      }
    };
    auto without = [&](uint32_t id) {
      std::vector<MhaArgument> a;
      for (const auto& x : good)
        if (x.id != id) a.push_back(x);
      return a;
    };
    auto with = [&](MhaArgument extra) {
      auto a = good;
      a.push_back(extra);
      return a;
    };
    auto replaced = [&](uint32_t id, void* buffer) {
      auto a = good;
      for (auto& x : a)
        if (x.id == id) x.buffer = buffer;
      return a;
    };
    float spare = 0.0f;
    int bad_mask = 2;
    EXPECT_EQ(status(without(5), "missing miopenTensorMhaQ"), miopenStatusInvalidValue);
    EXPECT_EQ(status(with({fwd ? 29u : 17u, &spare}), "is not an argument"), miopenStatusBadParm);
    EXPECT_EQ(status(with({3u, &spare}), "argument id 3"), miopenStatusBadParm);
    EXPECT_EQ(status(with({5u, &spare}), "given twice"), miopenStatusBadParm);
    EXPECT_EQ(status(replaced(5, nullptr), "null pointer"), miopenStatusBadParm);
    EXPECT_EQ(status(replaced(36, nullptr), "null pointer"), miopenStatusBadParm);
    EXPECT_EQ(status(without(36), "no buffer"), miopenStatusBadParm);
    EXPECT_EQ(status(replaced(kMhaMaskArgumentId, nullptr), "miopenTensorMhaMask"),
              miopenStatusBadParm);
    EXPECT_EQ(status(replaced(kMhaMaskArgumentId, &bad_mask), "not a miopenMhaMask_t"),
              miopenStatusBadParm);
    // Optional pointers: a null scale reads as 1, a null amax is not written.
    auto optional = replaced(static_cast<uint32_t>(T::DescaleQ), nullptr);
    for (auto& x : optional)
      if (x.id == static_cast<uint32_t>(fwd ? T::AmaxS : T::AmaxDS)) x.buffer = nullptr;
    const MhaBuffers b = mha_buffers(p, optional);
    EXPECT_EQ(b.get(T::DescaleQ), nullptr);
    EXPECT_EQ(mha::load_scalars(b.scalars()).descale_q, 1.0f);
    // Without the mask argument there is no mask.
    EXPECT_FALSE(mha_buffers(p, without(kMhaMaskArgumentId)).causal());
  }
}

// A problem without a bias takes no bias buffer.
TEST(MhaOps, BiasBufferWithoutDescriptorIsRejected) {
  const test::MhaCase c{"nobias", 1, 1, 3, 3, 2, 2};
  const MhaProblem p = test::mha_problem(c, MhaDirection::Forward);
  test::MhaHostCall call;
  std::mt19937 rng(1);
  test::mha_fill(c, p, call, rng);
  auto args = call.arguments([](MhaTensor, driver::HostTensor& h) { return h.data(); });
  float bias = 0.0f;
  args.push_back({static_cast<uint32_t>(T::Bias), &bias});
  try {
    mha_buffers(p, args);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), miopenStatusBadParm);
    EXPECT_NE(std::string(e.what()).find("no bias descriptor"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace anydnn
