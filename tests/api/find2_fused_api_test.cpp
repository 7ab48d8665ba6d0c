// Find 2.0 on fused problems (miopenFuseProblems) through the public C API, each chain MIOpen
// fuses against the same steps as separate calls: convolution + bias + activation, convolution
// + activation, convolution + BN inference + activation, BN inference / forward training +
// activation, BN backward + activation backward. Every solution runs (output poisoned first)
// and round-trips through a blob.
#include <gtest/gtest.h>

#include <cmath>

#include "find2_test_util.hpp"

namespace anydnn::test {
namespace {

std::vector<float> poisoned(size_t n) {
  return std::vector<float>(n, std::nanf(""));
}

Find2Problem conv_problem(miopenConvolutionDescriptor_t conv, miopenTensorDescriptor_t x,
                          miopenTensorDescriptor_t w, miopenTensorDescriptor_t y) {
  miopenProblem_t raw = nullptr;
  EXPECT_EQ(miopenCreateConvProblem(&raw, conv, miopenProblemDirectionForward),
            miopenStatusSuccess);
  Find2Problem p(raw);
  p.set(miopenTensorConvolutionX, x);
  p.set(miopenTensorConvolutionW, w);
  p.set(miopenTensorConvolutionY, y);
  return p;
}

// Appends a problem to `chain` and destroys it, as MIOpen's tests do.
void fuse(Find2Problem& chain, miopenProblem_t next) {
  EXPECT_EQ(miopenFuseProblems(chain, next), miopenStatusSuccess);
  EXPECT_EQ(miopenDestroyProblem(next), miopenStatusSuccess);
}

miopenProblem_t activation_problem(miopenActivationDescriptor_t a, miopenProblemDirection_t d) {
  miopenProblem_t raw = nullptr;
  EXPECT_EQ(miopenCreateActivationProblem(&raw, a, d), miopenStatusSuccess);
  return raw;
}

miopenProblem_t bias_problem(miopenTensorDescriptor_t b) {
  miopenProblem_t raw = nullptr;
  EXPECT_EQ(miopenCreateBiasProblem(&raw, miopenProblemDirectionForward), miopenStatusSuccess);
  EXPECT_EQ(miopenSetProblemTensorDescriptor(raw, miopenTensorBias, b), miopenStatusSuccess);
  return raw;
}

miopenProblem_t bn_problem(miopenProblemDirection_t d, bool running,
                           const std::vector<miopenTensorArgumentId_t>& params,
                           miopenTensorDescriptor_t param) {
  miopenProblem_t raw = nullptr;
  EXPECT_EQ(miopenCreateBatchnormProblem(&raw, miopenBNSpatial, running, d), miopenStatusSuccess);
  for (auto id : params)
    EXPECT_EQ(miopenSetProblemTensorDescriptor(raw, id, param), miopenStatusSuccess);
  return raw;
}

// Runs every solution of `p` (and its reloaded blob) with `args`, `out` poisoned first, and
// compares `out` with `want`.
void expect_solutions_give(miopenHandle_t h, miopenProblem_t p,
                           const std::vector<miopenTensorArgument_t>& args, std::vector<float>& out,
                           const std::vector<float>& want, double tol) {
  const Solutions sols = find_solutions(h, p);
  ASSERT_GT(sols.size(), 0u);
  for (size_t i = 0; i < sols.size(); ++i) {
    SCOPED_TRACE("solver " + std::to_string(info_of(sols[i]).id));
    std::fill(out.begin(), out.end(), std::nanf(""));
    ASSERT_EQ(run(h, sols[i], args), miopenStatusSuccess);
    EXPECT_LE(ref::max_relative_error(want, out), tol);
    const std::vector<float> first = out;
    const auto blob = save(sols[i]);
    miopenSolution_t loaded = nullptr;
    ASSERT_EQ(miopenLoadSolution(&loaded, blob.data(), blob.size()), miopenStatusSuccess);
    std::fill(out.begin(), out.end(), std::nanf(""));
    ASSERT_EQ(run(h, loaded, args), miopenStatusSuccess);
    EXPECT_EQ(out, first) << "the loaded solution runs differently";
    miopenDestroySolution(loaded);
  }
}

// A 2-D convolution's tensors with random data.
struct ConvChain {
  std::mt19937 rng{fresh_seed()};
  Tensor x{miopenFloat, {2, 4, 9, 10}}, w{miopenFloat, {6, 4, 3, 3}}, y{miopenFloat, {2, 6, 9, 10}};
  Tensor param{miopenFloat, {1, 6, 1, 1}};
  Conv conv{1, 1, 1, 1};
  std::vector<float> hx = random_floats(rng, 2 * 4 * 90), hw = random_floats(rng, 6 * 4 * 9);
  std::vector<float> hb = random_floats(rng, 6), scale = random_floats(rng, 6, 0.5f, 1.5f),
                     mean = random_floats(rng, 6), var = random_floats(rng, 6, 0.5f, 1.5f);

  // The convolution alone, by immediate mode's first solution.
  std::vector<float> convolve(miopenHandle_t h) {
    miopenConvSolution_t s;
    size_t n = 0;
    EXPECT_EQ(miopenConvolutionForwardGetSolution(h, w, x, conv, y, 1, &n, &s),
              miopenStatusSuccess);
    std::vector<uint8_t> ws(s.workspace_size);
    std::vector<float> out = poisoned(2 * 6 * 90);
    EXPECT_EQ(miopenConvolutionForwardImmediate(h, w, hw.data(), x, hx.data(), conv, y, out.data(),
                                                ws.empty() ? nullptr : ws.data(), ws.size(),
                                                s.solution_id),
              miopenStatusSuccess);
    return out;
  }
};

void activate(miopenHandle_t h, miopenActivationDescriptor_t a, miopenTensorDescriptor_t t,
              std::vector<float>& v) {
  float one = 1.0f, zero = 0.0f;  // MIOpen's batch-norm calls take void*
  EXPECT_EQ(miopenActivationForward(h, a, &one, t, v.data(), &zero, t, v.data()),
            miopenStatusSuccess);
}

TEST(Find2Fused, ConvBiasActivationAndConvActivation) {
  Handle h;
  ConvChain c;
  Activ a(miopenActivationLEAKYRELU, 0.1, 0.0, 0.0);
  float one = 1.0f, zero = 0.0f;  // MIOpen's batch-norm calls take void*
  std::vector<float> want = c.convolve(h);
  std::vector<float> conv_only = want;
  ASSERT_EQ(miopenConvolutionForwardBias(h, &one, c.param, c.hb.data(), &zero, c.y, want.data()),
            miopenStatusSuccess);
  activate(h, a, c.y, want);
  activate(h, a, c.y, conv_only);

  std::vector<float> out = poisoned(want.size());
  {
    Find2Problem p = conv_problem(c.conv, c.x, c.w, c.y);
    fuse(p, bias_problem(c.param));
    fuse(p, activation_problem(a, miopenProblemDirectionForward));
    expect_solutions_give(h, p,
                          arguments({{miopenTensorConvolutionX, c.hx.data()},
                                     {miopenTensorConvolutionW, c.hw.data()},
                                     {miopenTensorBias, c.hb.data()},
                                     {miopenTensorActivationY, out.data()}}),
                          out, want, 1e-5);
  }
  {
    Find2Problem p = conv_problem(c.conv, c.x, c.w, c.y);
    fuse(p, activation_problem(a, miopenProblemDirectionForward));
    expect_solutions_give(h, p,
                          arguments({{miopenTensorConvolutionX, c.hx.data()},
                                     {miopenTensorConvolutionW, c.hw.data()},
                                     {miopenTensorActivationY, out.data()}}),
                          out, conv_only, 1e-5);
  }
}

TEST(Find2Fused, ConvBnInferenceActivation) {
  Handle h;
  ConvChain c;
  Activ a(miopenActivationRELU, 0.0, 0.0, 0.0);
  double eps = 1e-5;
  float one = 1.0f, zero = 0.0f;  // MIOpen's batch-norm calls take void*
  const std::vector<float> conv_out = c.convolve(h);
  std::vector<float> want = poisoned(conv_out.size());
  ASSERT_EQ(miopenBatchNormalizationForwardInference(
                h, miopenBNSpatial, &one, &zero, c.y, conv_out.data(), c.y, want.data(), c.param,
                c.scale.data(), c.hb.data(), c.mean.data(), c.var.data(), eps),
            miopenStatusSuccess);
  activate(h, a, c.y, want);

  Find2Problem p = conv_problem(c.conv, c.x, c.w, c.y);
  fuse(p, bn_problem(miopenProblemDirectionInference, false,
                     {miopenTensorBatchnormScale, miopenTensorBatchnormBias,
                      miopenTensorBatchnormEstimatedMean, miopenTensorBatchnormEstimatedVariance},
                     c.param));
  fuse(p, activation_problem(a, miopenProblemDirectionForward));
  std::vector<float> out = poisoned(want.size());
  expect_solutions_give(h, p,
                        arguments({{miopenTensorConvolutionX, c.hx.data()},
                                   {miopenTensorConvolutionW, c.hw.data()},
                                   {miopenTensorBatchnormScale, c.scale.data()},
                                   {miopenTensorBatchnormBias, c.hb.data()},
                                   {miopenTensorBatchnormEstimatedMean, c.mean.data()},
                                   {miopenTensorBatchnormEstimatedVariance, c.var.data()},
                                   {miopenScalarBatchnormEpsilon, &eps},
                                   {miopenTensorActivationY, out.data()}}),
                        out, want, 1e-5);
}

TEST(Find2Fused, BnInferenceAndTrainingWithActivation) {
  Handle h;
  ConvChain c;  // its y-shaped tensors serve as BN data
  Activ a(miopenActivationCLIPPEDRELU, 0.8, 0.0, 0.0);
  double eps = 1e-5, factor = 0.25;
  float one = 1.0f, zero = 0.0f;  // MIOpen's batch-norm calls take void*
  const std::vector<float> x = c.convolve(h);
  {
    std::vector<float> want = poisoned(x.size());
    ASSERT_EQ(miopenBatchNormalizationForwardInference(
                  h, miopenBNSpatial, &one, &zero, c.y, x.data(), c.y, want.data(), c.param,
                  c.scale.data(), c.hb.data(), c.mean.data(), c.var.data(), eps),
              miopenStatusSuccess);
    activate(h, a, c.y, want);
    Find2Problem q(
        bn_problem(miopenProblemDirectionInference, false,
                   {miopenTensorBatchnormScale, miopenTensorBatchnormBias,
                    miopenTensorBatchnormEstimatedMean, miopenTensorBatchnormEstimatedVariance},
                   c.param));
    q.set(miopenTensorBatchnormX, c.y);
    fuse(q, activation_problem(a, miopenProblemDirectionForward));
    std::vector<float> out = poisoned(x.size());
    expect_solutions_give(h, q,
                          arguments({{miopenTensorBatchnormX, const_cast<float*>(x.data())},
                                     {miopenTensorBatchnormScale, c.scale.data()},
                                     {miopenTensorBatchnormBias, c.hb.data()},
                                     {miopenTensorBatchnormEstimatedMean, c.mean.data()},
                                     {miopenTensorBatchnormEstimatedVariance, c.var.data()},
                                     {miopenScalarBatchnormEpsilon, &eps},
                                     {miopenTensorActivationY, out.data()}}),
                          out, want, 1e-6);
  }
  {
    std::vector<float> run_mean = c.mean, run_var = c.var, smean(6), sinv(6);
    std::vector<float> want = poisoned(x.size());
    ASSERT_EQ(miopenBatchNormalizationForwardTraining(
                  h, miopenBNSpatial, &one, &zero, c.y, x.data(), c.y, want.data(), c.param,
                  c.scale.data(), c.hb.data(), factor, run_mean.data(), run_var.data(), eps,
                  smean.data(), sinv.data()),
              miopenStatusSuccess);
    activate(h, a, c.y, want);
    Find2Problem p(
        bn_problem(miopenProblemDirectionForward, true,
                   {miopenTensorBatchnormScale, miopenTensorBatchnormBias,
                    miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance,
                    miopenTensorBatchnormRunningMean, miopenTensorBatchnormRunningVariance},
                   c.param));
    p.set(miopenTensorBatchnormX, c.y);
    fuse(p, activation_problem(a, miopenProblemDirectionForward));
    const Solutions sols = find_solutions(h, p);
    ASSERT_GT(sols.size(), 0u);
    for (size_t i = 0; i < sols.size(); ++i) {
      std::vector<float> rm = c.mean, rv = c.var, sm = poisoned(6), si = poisoned(6);
      std::vector<float> out = poisoned(x.size());
      ASSERT_EQ(run(h, sols[i],
                    arguments({{miopenTensorBatchnormX, const_cast<float*>(x.data())},
                               {miopenTensorBatchnormScale, c.scale.data()},
                               {miopenTensorBatchnormBias, c.hb.data()},
                               {miopenTensorBatchnormSavedMean, sm.data()},
                               {miopenTensorBatchnormSavedVariance, si.data()},
                               {miopenTensorBatchnormRunningMean, rm.data()},
                               {miopenTensorBatchnormRunningVariance, rv.data()},
                               {miopenScalarBatchnormExpAvgFactor, &factor},
                               {miopenScalarBatchnormEpsilon, &eps},
                               {miopenTensorActivationY, out.data()}})),
                miopenStatusSuccess);
      EXPECT_LE(ref::max_relative_error(want, out), 1e-6);
      EXPECT_LE(ref::max_relative_error(run_mean, rm), 1e-6);
      EXPECT_LE(ref::max_relative_error(run_var, rv), 1e-6);
      EXPECT_LE(ref::max_relative_error(smean, sm), 1e-6);
      EXPECT_LE(ref::max_relative_error(sinv, si), 1e-6);
    }
  }
}

// BN backward + ReLU backward: the gradient through ReLU at bn(x) (recomputed from the saved
// statistics), then BN backward, as separate calls.
TEST(Find2Fused, BnBackwardActivationBackward) {
  Handle h;
  ConvChain c;
  Activ a(miopenActivationRELU, 0.0, 0.0, 0.0);
  float one = 1.0f, zero = 0.0f;  // MIOpen's batch-norm calls take void*
  double eps = 1e-5;
  const std::vector<float> x = c.convolve(h);
  std::vector<float> dy = random_floats(c.rng, x.size());
  std::vector<float> smean = c.mean, sinv = c.var;
  std::vector<float> grad(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t ch = (i / 90) % 6;
    const double bn = c.scale[ch] * (x[i] - smean[ch]) * sinv[ch] + c.hb[ch];
    grad[i] = bn > 0.0 ? dy[i] : 0.0f;
  }
  std::vector<float> want = poisoned(x.size()), dscale(6), dbias(6);
  ASSERT_EQ(
      miopenBatchNormalizationBackward(h, miopenBNSpatial, &one, &zero, &one, &zero, c.y, x.data(),
                                       c.y, grad.data(), c.y, want.data(), c.param, c.scale.data(),
                                       dscale.data(), dbias.data(), eps, smean.data(), sinv.data()),
      miopenStatusSuccess);

  Find2Problem p(bn_problem(miopenProblemDirectionBackward, true,
                            {miopenTensorBatchnormScale, miopenTensorBatchnormBias,
                             miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance,
                             miopenTensorBatchnormScaleDiff, miopenTensorBatchnormBiasDiff},
                            c.param));
  p.set(miopenTensorBatchnormX, c.y);
  p.set(miopenTensorBatchnormDY, c.y);
  miopenProblem_t act = activation_problem(a, miopenProblemDirectionBackward);
  EXPECT_EQ(miopenSetProblemTensorDescriptor(act, miopenTensorActivationX, c.y),
            miopenStatusSuccess);
  EXPECT_EQ(miopenSetProblemTensorDescriptor(act, miopenTensorActivationY, c.y),
            miopenStatusSuccess);
  fuse(p, act);
  const Solutions sols = find_solutions(h, p);
  ASSERT_GT(sols.size(), 0u);
  std::vector<float> unused(x.size(), 0.0f);
  for (size_t i = 0; i < sols.size(); ++i) {
    std::vector<float> out = poisoned(x.size()), ds = poisoned(6), db = poisoned(6);
    ASSERT_EQ(run(h, sols[i],
                  arguments({{miopenTensorBatchnormX, const_cast<float*>(x.data())},
                             {miopenTensorBatchnormDY, dy.data()},
                             {miopenTensorBatchnormScale, c.scale.data()},
                             {miopenTensorBatchnormBias, c.hb.data()},
                             {miopenTensorBatchnormSavedMean, smean.data()},
                             {miopenTensorBatchnormSavedVariance, sinv.data()},
                             {miopenTensorBatchnormScaleDiff, ds.data()},
                             {miopenTensorBatchnormBiasDiff, db.data()},
                             {miopenTensorActivationX, unused.data()},
                             {miopenTensorActivationY, unused.data()},
                             {miopenTensorActivationDX, out.data()}})),
              miopenStatusSuccess);
    EXPECT_LE(ref::max_relative_error(want, out), 1e-5);
    EXPECT_LE(ref::max_relative_error(dscale, ds), 1e-5);
    EXPECT_LE(ref::max_relative_error(dbias, db), 1e-5);
  }
}

}  // namespace
}  // namespace anydnn::test
