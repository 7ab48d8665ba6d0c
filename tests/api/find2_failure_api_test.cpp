// Find 2.0 bad input through the public C API: every invalid pointer, id, descriptor, problem,
// option, run argument, workspace and blob returns its status with a one-line reason in the log
// and writes nothing.
#include <gtest/gtest.h>

#include <cmath>

#include "find2_test_util.hpp"

namespace anydnn::test {
namespace {

using driver::HostTensor;

constexpr miopenProblemDirection_t kFwd = miopenProblemDirectionForward;

TEST(Find2Failures, CreatingProblems) {
  Conv conv;
  miopenProblem_t p = reinterpret_cast<miopenProblem_t>(0x1);  // must stay as it is
  const auto untouched = p;
  expect_failure(miopenStatusBadParm, "miopenCreateConvProblem", "problem is a null pointer",
                 [&] { return miopenCreateConvProblem(nullptr, conv, kFwd); });
  expect_failure(miopenStatusBadParm, "miopenCreateConvProblem", "operatorDesc",
                 [&] { return miopenCreateConvProblem(&p, nullptr, kFwd); });
  expect_failure(
      miopenStatusBadParm, "miopenCreateConvProblem", "not a miopenProblemDirection_t",
      [&] { return miopenCreateConvProblem(&p, conv, static_cast<miopenProblemDirection_t>(7)); });
  expect_failure(miopenStatusBadParm, "miopenCreateConvProblem", "no inference direction", [&] {
    return miopenCreateConvProblem(&p, conv, miopenProblemDirectionInference);
  });
  expect_failure(miopenStatusBadParm, "miopenCreateBatchnormProblem", "bn_mode", [&] {
    return miopenCreateBatchnormProblem(&p, static_cast<miopenBatchNormMode_t>(5), false, kFwd);
  });
  expect_failure(
      miopenStatusBadParm, "miopenCreateActivationProblem", "no backward weights direction", [&] {
        Activ a(miopenActivationRELU, 0, 0, 0);
        return miopenCreateActivationProblem(&p, a, miopenProblemDirectionBackwardWeights);
      });
  EXPECT_EQ(p, untouched);
  miopenMhaDescriptor_t mha = nullptr;
  ASSERT_EQ(miopenCreateMhaDescriptor(&mha), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenSetMhaDescriptor", "not finite",
                 [&] { return miopenSetMhaDescriptor(mha, std::nanf("")); });
  float scale = 0.0f;
  ASSERT_EQ(miopenSetMhaDescriptor(mha, 0.125f), miopenStatusSuccess);
  ASSERT_EQ(miopenGetMhaDescriptor(mha, &scale), miopenStatusSuccess);
  EXPECT_EQ(scale, 0.125f);
  expect_failure(miopenStatusBadParm, "miopenGetMhaDescriptor", "scale",
                 [&] { return miopenGetMhaDescriptor(mha, nullptr); });
  ASSERT_EQ(miopenCreateMhaProblem(&p, mha, kFwd), miopenStatusSuccess);
  EXPECT_EQ(miopenDestroyProblem(p), miopenStatusSuccess);
  // Another kind of object (a destroyed one cannot be read without undefined behaviour).
  expect_failure(miopenStatusBadParm, "miopenDestroyProblem", "does not point to a live object",
                 [&] { return miopenDestroyProblem(reinterpret_cast<miopenProblem_t>(mha)); });
  leaked_by_design(mha);
}

TEST(Find2Failures, SettingTensorDescriptors) {
  ConvSetup c("conv -n 1 -c 2 -H 5 -W 5 -k 3 -y 3 -x 3 -F 1");
  miopenProblem_t raw = nullptr;
  ASSERT_EQ(miopenCreateConvProblem(&raw, c.conv, kFwd), miopenStatusSuccess);
  Find2Problem p(raw);
  expect_failure(miopenStatusBadParm, "miopenSetProblemTensorDescriptor",
                 "miopenTensorSoftmaxX is not an argument of a forward convolution problem",
                 [&] { return miopenSetProblemTensorDescriptor(p, miopenTensorSoftmaxX, c.x); });
  expect_failure(miopenStatusBadParm, "miopenSetProblemTensorDescriptor", "is a scalar argument",
                 [&] { return miopenSetProblemTensorDescriptor(p, miopenTensorMhaMask, c.x); });
  Tensor unset;
  expect_failure(miopenStatusBadParm, "miopenSetProblemTensorDescriptor", "has not been set", [&] {
    return miopenSetProblemTensorDescriptor(p, miopenTensorConvolutionX, unset);
  });
  ASSERT_EQ(miopenSetProblemTensorDescriptor(p, miopenTensorConvolutionX, c.x),
            miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenSetProblemTensorDescriptor", "already set", [&] {
    return miopenSetProblemTensorDescriptor(p, miopenTensorConvolutionX, c.y);
  });
  expect_failure(miopenStatusBadParm, "miopenSetProblemTensorDescriptor", "problem is a null", [&] {
    return miopenSetProblemTensorDescriptor(nullptr, miopenTensorConvolutionX, c.x);
  });
  // A fused problem's tensors are its parts'.
  Activ a(miopenActivationRELU, 0, 0, 0);
  miopenProblem_t act = nullptr;
  ASSERT_EQ(miopenCreateActivationProblem(&act, a, kFwd), miopenStatusSuccess);
  ASSERT_EQ(miopenFuseProblems(p, act), miopenStatusSuccess);
  miopenDestroyProblem(act);
  expect_failure(miopenStatusBadParm, "miopenSetProblemTensorDescriptor", "fused problem", [&] {
    return miopenSetProblemTensorDescriptor(p, miopenTensorConvolutionW, c.w);
  });
}

TEST(Find2Failures, FindingSolutions) {
  ConvSetup c("conv -n 1 -c 2 -H 5 -W 5 -k 3 -y 3 -x 3 -F 1");
  Handle h;
  miopenProblem_t raw = nullptr;
  ASSERT_EQ(miopenCreateConvProblem(&raw, c.conv, kFwd), miopenStatusSuccess);
  Find2Problem p(raw);
  p.set(miopenTensorConvolutionX, c.x);
  p.set(miopenTensorConvolutionW, c.w);
  miopenSolution_t sol[4] = {nullptr, nullptr, nullptr, nullptr};
  size_t n = 99;
  expect_failure(miopenStatusInvalidValue, "miopenFindSolutions",
                 "Problem is missing miopenTensorConvolutionY tensor descriptor",
                 [&] { return miopenFindSolutions(h, p, nullptr, sol, &n, 4); });
  Tensor wrong(miopenFloat, {1, 3, 4, 4});
  p.set(miopenTensorConvolutionY, wrong);
  expect_failure(miopenStatusBadParm, "miopenFindSolutions", "do not match the convolution",
                 [&] { return miopenFindSolutions(h, p, nullptr, sol, &n, 4); });
  Find2Problem good = c.problem(kFwd);
  expect_failure(miopenStatusBadParm, "miopenFindSolutions", "maxSolutions is 0",
                 [&] { return miopenFindSolutions(h, good, nullptr, sol, &n, 0); });
  expect_failure(miopenStatusBadParm, "miopenFindSolutions", "solutions is a null pointer",
                 [&] { return miopenFindSolutions(h, good, nullptr, nullptr, &n, 4); });
  expect_failure(miopenStatusBadParm, "miopenFindSolutions", "handle is a null pointer",
                 [&] { return miopenFindSolutions(nullptr, good, nullptr, sol, &n, 4); });
  EXPECT_EQ(n, 99u);
  for (auto s : sol)
    EXPECT_EQ(s, nullptr);
  // An MHA problem without its tensors (MIOpen's status and words; the MHA failures are in
  // mha_find2_api_test.cpp); a bias problem has no backward solution.
  miopenMhaDescriptor_t mha = nullptr;
  ASSERT_EQ(miopenCreateMhaDescriptor(&mha), miopenStatusSuccess);
  leaked_by_design(mha);
  ASSERT_EQ(miopenCreateMhaProblem(&raw, mha, kFwd), miopenStatusSuccess);
  Find2Problem mp(raw);
  expect_failure(miopenStatusInvalidValue, "miopenFindSolutions",
                 "Problem is missing miopenTensorMhaK tensor descriptor.",
                 [&] { return miopenFindSolutions(h, mp, nullptr, sol, &n, 4); });
  ASSERT_EQ(miopenCreateBiasProblem(&raw, miopenProblemDirectionBackward), miopenStatusSuccess);
  Find2Problem bp(raw);
  bp.set(miopenTensorBiasX, c.y);
  bp.set(miopenTensorBiasY, c.y);
  expect_failure(miopenStatusNotImplemented, "miopenFindSolutions", "backward bias",
                 [&] { return miopenFindSolutions(h, bp, nullptr, sol, &n, 4); });
  // Option setters check their arguments.
  FindOptions o;
  expect_failure(miopenStatusBadParm, "miopenSetFindOptionResultsOrder", "not a", [&] {
    return miopenSetFindOptionResultsOrder(o, static_cast<miopenFindResultsOrder_t>(9));
  });
  expect_failure(miopenStatusBadParm, "miopenSetFindOptionPreallocatedWorkspace",
                 "null pointer but size",
                 [&] { return miopenSetFindOptionPreallocatedWorkspace(o, nullptr, 16); });
  expect_failure(miopenStatusBadParm, "miopenSetFindOptionPreallocatedTensor", "null pointer", [&] {
    return miopenSetFindOptionPreallocatedTensor(o, miopenTensorConvolutionX, nullptr);
  });
  expect_failure(miopenStatusBadParm, "miopenSetFindOptionTuning", "options is a null pointer",
                 [&] { return miopenSetFindOptionTuning(nullptr, 1); });
}

TEST(Find2Failures, FusingIncompatibleProblems) {
  ConvSetup c("conv -n 1 -c 2 -H 5 -W 5 -k 3 -y 3 -x 3 -F 1");
  Handle h;
  miopenSoftmaxDescriptor_t sd;
  ASSERT_EQ(miopenCreateSoftmaxDescriptor(&sd), miopenStatusSuccess);
  leaked_by_design(sd);
  miopenProblem_t softmax = nullptr;
  ASSERT_EQ(miopenCreateSoftmaxProblem(&softmax, sd, kFwd), miopenStatusSuccess);
  Find2Problem sp(softmax);
  Find2Problem p = c.problem(kFwd);
  expect_failure(miopenStatusUnsupportedOp, "miopenFuseProblems",
                 "softmax problems cannot be fused", [&] { return miopenFuseProblems(p, sp); });
  // Activation then convolution: not a chain MIOpen fuses (found at Find, the chain named).
  Activ a(miopenActivationRELU, 0, 0, 0);
  miopenProblem_t act = nullptr;
  ASSERT_EQ(miopenCreateActivationProblem(&act, a, kFwd), miopenStatusSuccess);
  Find2Problem chain(act);
  chain.set(miopenTensorActivationX, c.x);
  ASSERT_EQ(miopenFuseProblems(chain, p), miopenStatusSuccess);
  miopenSolution_t sol[2];
  size_t n = 0;
  expect_failure(miopenStatusUnsupportedOp, "miopenFindSolutions", "ActivForward+ConvForward",
                 [&] { return miopenFindSolutions(h, chain, nullptr, sol, &n, 2); });
  // A bias with the wrong channel count.
  Find2Problem p2 = c.problem(kFwd);
  miopenProblem_t bias = nullptr;
  ASSERT_EQ(miopenCreateBiasProblem(&bias, kFwd), miopenStatusSuccess);
  Tensor b(miopenFloat, {1, 5, 1, 1});
  ASSERT_EQ(miopenSetProblemTensorDescriptor(bias, miopenTensorBias, b), miopenStatusSuccess);
  ASSERT_EQ(miopenFuseProblems(p2, bias), miopenStatusSuccess);
  miopenDestroyProblem(bias);
  expect_failure(miopenStatusBadParm, "miopenFindSolutions", "bDesc",
                 [&] { return miopenFindSolutions(h, p2, nullptr, sol, &n, 2); });
  miopenSoftmaxDescriptor_t unused = sd;  // MIOpen has no destroy call for it
  (void)unused;
  // A problem fused with itself doubles each time: refused past 8 operators, unchanged.
  Find2Problem self = c.problem(kFwd);
  ASSERT_EQ(miopenFuseProblems(self, self), miopenStatusSuccess);  // 2
  ASSERT_EQ(miopenFuseProblems(self, self), miopenStatusSuccess);  // 4
  ASSERT_EQ(miopenFuseProblems(self, self), miopenStatusSuccess);  // 8
  expect_failure(miopenStatusUnsupportedOp, "miopenFuseProblems", "at most 8 operators",
                 [&] { return miopenFuseProblems(self, self); });
  expect_failure(miopenStatusUnsupportedOp, "miopenFuseProblems", "8 + 1",
                 [&] { return miopenFuseProblems(self, p); });
}

// A run with a missing, extra, repeated or null buffer, an overriding descriptor or too small a
// workspace fails and leaves the output as it was.
TEST(Find2Failures, RunningSolutions) {
  ConvSetup c("conv -n 2 -c 4 -H 9 -W 9 -k 4 -y 3 -x 3 -p 1 -q 1 -F 1");
  Handle h;
  Find2Problem p = c.problem(kFwd);
  const Solutions sols = find_solutions(h, p);
  ASSERT_GT(sols.size(), 0u);
  miopenSolution_t with_ws = nullptr;
  for (size_t i = 0; i < sols.size(); ++i)
    if (info_of(sols[i]).workspace > 0) with_ws = sols[i];
  ASSERT_NE(with_ws, nullptr) << "the problem must have a solver that needs workspace";
  c.hy.poison();
  const HostTensor before = c.hy;
  const auto args = c.args();
  const auto fails = [&](miopenStatus_t status, const std::string& reason,
                         std::vector<miopenTensorArgument_t> a, miopenSolution_t s) {
    expect_failure(status, "miopenRunSolution", reason, [&] { return run(h, s, a); });
    EXPECT_EQ(c.hy.bytes, before.bytes) << "a failed run wrote its output";
  };
  fails(miopenStatusInvalidValue, "no buffer for miopenTensorConvolutionW", {args[0], args[2]},
        sols[0]);
  auto extra = args;
  extra.push_back({miopenTensorSoftmaxX, nullptr, c.hx.data()});
  fails(miopenStatusBadParm, "miopenTensorSoftmaxX is not an argument", extra, sols[0]);
  auto twice = args;
  twice.push_back(args[0]);
  fails(miopenStatusBadParm, "is given twice", twice, sols[0]);
  auto null = args;
  null[1].buffer = nullptr;
  fails(miopenStatusBadParm, "is a null pointer", null, sols[0]);
  Tensor other(miopenFloat, {2, 4, 9, 10});
  miopenTensorDescriptor_t other_d = other;
  auto override_desc = args;
  override_desc[0].descriptor = &other_d;
  fails(miopenStatusNotImplemented, "overriding descriptors is not supported", override_desc,
        sols[0]);
  size_t need = 0;
  ASSERT_EQ(miopenGetSolutionWorkspaceSize(with_ws, &need), miopenStatusSuccess);
  std::vector<uint8_t> small(need - 1);
  expect_failure(miopenStatusBadParm, "miopenRunSolution",
                 "requires at least " + std::to_string(need) + " workspace, while " +
                     std::to_string(need - 1) + " was provided",
                 [&] {
                   return miopenRunSolution(h, with_ws, args.size(), args.data(), small.data(),
                                            small.size());
                 });
  EXPECT_EQ(c.hy.bytes, before.bytes);
  // The problem's own descriptor may be given.
  miopenTensorDescriptor_t same = c.x;
  auto same_desc = args;
  same_desc[0].descriptor = &same;
  EXPECT_EQ(run(h, sols[0], same_desc), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenRunSolution", "tensors is a null pointer",
                 [&] { return miopenRunSolution(h, sols[0], 3, nullptr, nullptr, 0); });
}

// Blobs: another format version is VersionMismatch; a truncated, corrupted or foreign blob
// BadParm; a blob from another backend loads but does not run on this one.
TEST(Find2Failures, Blobs) {
  ConvSetup c("conv -n 1 -c 3 -H 6 -W 6 -k 2 -y 3 -x 3 -F 1");
  Handle h;
  Find2Problem p = c.problem(kFwd);
  const Solutions sols = find_solutions(h, p);
  ASSERT_GT(sols.size(), 0u);
  const std::vector<char> blob = save(sols[0]);
  miopenSolution_t s = reinterpret_cast<miopenSolution_t>(0x1);
  const auto untouched = s;
  const auto load_fails = [&](miopenStatus_t status, const std::string& reason,
                              const std::vector<char>& b) {
    expect_failure(status, "miopenLoadSolution", reason,
                   [&] { return miopenLoadSolution(&s, b.data(), b.size()); });
    EXPECT_EQ(s, untouched);
  };
  auto version = blob;
  version[8] = 2;
  load_fails(miopenStatusVersionMismatch, "format version 2", version);
  reseal(version);
  load_fails(miopenStatusVersionMismatch, "format version 2", version);
  load_fails(miopenStatusBadParm, "truncated", std::vector<char>(blob.begin(), blob.begin() + 20));
  load_fails(miopenStatusBadParm, "says it has", std::vector<char>(blob.begin(), blob.end() - 1));
  auto flipped = blob;
  flipped[blob.size() / 2] ^= 0x10;
  load_fails(miopenStatusBadParm, "checksum", flipped);
  std::mt19937 rng(fresh_seed());
  std::vector<char> noise(blob.size());
  for (auto& ch : noise)
    ch = static_cast<char>(rng());
  load_fails(miopenStatusBadParm, "not a solution blob", noise);
  load_fails(miopenStatusBadParm, "at least", std::vector<char>(3, 'A'));
  expect_failure(miopenStatusBadParm, "miopenLoadSolution", "Data parameter",
                 [&] { return miopenLoadSolution(&s, nullptr, blob.size()); });
  expect_failure(miopenStatusBadParm, "miopenSaveSolution", "Data parameter",
                 [&] { return miopenSaveSolution(sols[0], nullptr); });
  expect_failure(miopenStatusBadParm, "miopenGetSolutionSize", "size",
                 [&] { return miopenGetSolutionSize(sols[0], nullptr); });

  // The backend byte follows the header (24 bytes) and the library string (u32 length + text).
  auto cuda = blob;
  uint32_t lib_len = 0;
  for (int i = 0; i < 4; ++i)
    lib_len |= static_cast<uint32_t>(static_cast<unsigned char>(cuda[24 + i])) << (8 * i);
  cuda[24 + 4 + lib_len] = 1;
  reseal(cuda);
  miopenSolution_t foreign = nullptr;
  ASSERT_EQ(miopenLoadSolution(&foreign, cuda.data(), cuda.size()), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenRunSolution", "found on the cuda backend",
                 [&] { return run(h, foreign, c.args()); });
  expect_failure(miopenStatusBadParm, "miopenRunSolution", "this handle's backend is cpu",
                 [&] { return run(h, foreign, c.args()); });
  miopenDestroySolution(foreign);
}

}  // namespace
}  // namespace anydnn::test
