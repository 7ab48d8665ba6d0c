// Find 2.0 on softmax, activation, bias and batch-norm problems and on fused problems, through
// the public C API: each solution's output (poisoned first) against the separate calls' (the
// legacy API, itself tested against the double references), every solution of every problem.
#include <gtest/gtest.h>

#include <cmath>

#include "find2_test_util.hpp"

namespace anydnn::test {
namespace {

// fp32 host data with its descriptor.
struct Data {
  Tensor t;
  std::vector<float> v;
  Data(std::vector<int> lens, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f)
      : t(miopenFloat, lens) {
    size_t n = 1;
    for (int l : lens)
      n *= static_cast<size_t>(l);
    v = random_floats(rng, n, lo, hi);
  }
  void poison() { std::fill(v.begin(), v.end(), std::nanf("")); }
  void* data() { return v.data(); }
};

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

void expect_close(const std::vector<float>& want, const std::vector<float>& got, double tol) {
  EXPECT_LE(ref::max_relative_error(want, got), tol);
}

Find2Problem make_problem(miopenStatus_t (*create)(miopenProblem_t*)) {
  miopenProblem_t p = nullptr;
  EXPECT_EQ(create(&p), miopenStatusSuccess);
  return Find2Problem(p);
}

miopenStatus_t create_bias_forward(miopenProblem_t* p) {
  return miopenCreateBiasProblem(p, miopenProblemDirectionForward);
}

TEST(Find2Layers, SoftmaxForwardAndBackwardMatchTheV2Calls) {
  std::mt19937 rng(fresh_seed());
  Handle h;
  miopenSoftmaxDescriptor_t sd;
  ASSERT_EQ(miopenCreateSoftmaxDescriptor(&sd), miopenStatusSuccess);
  leaked_by_design(sd);
  for (const auto algo : {MIOPEN_SOFTMAX_ACCURATE, MIOPEN_SOFTMAX_LOG}) {
    for (const auto mode : {MIOPEN_SOFTMAX_MODE_INSTANCE, MIOPEN_SOFTMAX_MODE_CHANNEL}) {
      SCOPED_TRACE(std::to_string(algo) + "/" + std::to_string(mode));
      ASSERT_EQ(miopenSetSoftmaxDescriptor(sd, 1.0f, 0.0f, algo, mode), miopenStatusSuccess);
      Data x({2, 5, 3, 4}, rng), y({2, 5, 3, 4}, rng), want({2, 5, 3, 4}, rng);
      Data dy({2, 5, 3, 4}, rng), dx({2, 5, 3, 4}, rng), want_dx({2, 5, 3, 4}, rng);
      float one = 1.0f, zero = 0.0f;  // the legacy calls take alpha / beta as void*
      ASSERT_EQ(
          miopenSoftmaxForward_V2(h, &one, x.t, x.data(), &zero, want.t, want.data(), algo, mode),
          miopenStatusSuccess);
      miopenProblem_t raw = nullptr;
      ASSERT_EQ(miopenCreateSoftmaxProblem(&raw, sd, miopenProblemDirectionForward),
                miopenStatusSuccess);
      Find2Problem fwd(raw);
      fwd.set(miopenTensorSoftmaxX, x.t);
      fwd.set(miopenTensorSoftmaxY, y.t);
      const Solutions sols = find_solutions(h, fwd);
      ASSERT_GT(sols.size(), 0u);
      for (size_t i = 0; i < sols.size(); ++i) {
        y.poison();
        ASSERT_EQ(
            run(h, sols[i],
                arguments({{miopenTensorSoftmaxX, x.data()}, {miopenTensorSoftmaxY, y.data()}})),
            miopenStatusSuccess);
        expect_close(want.v, y.v, 1e-6);
      }
      // Backward on the forward output.
      ASSERT_EQ(miopenSoftmaxBackward_V2(h, &one, want.t, want.data(), dy.t, dy.data(), &zero,
                                         want_dx.t, want_dx.data(), algo, mode),
                miopenStatusSuccess);
      ASSERT_EQ(miopenCreateSoftmaxProblem(&raw, sd, miopenProblemDirectionBackward),
                miopenStatusSuccess);
      Find2Problem bwd(raw);
      bwd.set(miopenTensorSoftmaxY, want.t);
      bwd.set(miopenTensorSoftmaxDY, dy.t);
      bwd.set(miopenTensorSoftmaxDX, dx.t);
      const Solutions bsols = find_solutions(h, bwd);
      ASSERT_GT(bsols.size(), 0u);
      for (size_t i = 0; i < bsols.size(); ++i) {
        dx.poison();
        ASSERT_EQ(run(h, bsols[i],
                      arguments({{miopenTensorSoftmaxY, want.data()},
                                 {miopenTensorSoftmaxDY, dy.data()},
                                 {miopenTensorSoftmaxDX, dx.data()}})),
                  miopenStatusSuccess);
        expect_close(want_dx.v, dx.v, 1e-6);
      }
    }
  }
}

TEST(Find2Layers, ActivationForwardAndBackwardMatchTheLegacyCalls) {
  std::mt19937 rng(fresh_seed());
  Handle h;
  for (const auto mode : {miopenActivationRELU, miopenActivationLEAKYRELU, miopenActivationELU,
                          miopenActivationLOGISTIC}) {
    SCOPED_TRACE(mode);
    Activ a(mode, 0.3, 0.5, 0.7);
    Data x({3, 4, 5, 6}, rng), y({3, 4, 5, 6}, rng), want({3, 4, 5, 6}, rng);
    Data dy({3, 4, 5, 6}, rng), dx({3, 4, 5, 6}, rng), want_dx({3, 4, 5, 6}, rng);
    float one = 1.0f, zero = 0.0f;  // the legacy calls take alpha / beta as void*
    ASSERT_EQ(miopenActivationForward(h, a, &one, x.t, x.data(), &zero, want.t, want.data()),
              miopenStatusSuccess);
    ASSERT_EQ(miopenActivationBackward(h, a, &one, want.t, want.data(), dy.t, dy.data(), x.t,
                                       x.data(), &zero, want_dx.t, want_dx.data()),
              miopenStatusSuccess);
    for (const auto dir : {miopenProblemDirectionForward, miopenProblemDirectionBackward}) {
      miopenProblem_t raw = nullptr;
      ASSERT_EQ(miopenCreateActivationProblem(&raw, a, dir), miopenStatusSuccess);
      Find2Problem p(raw);
      p.set(miopenTensorActivationX, x.t);
      p.set(miopenTensorActivationY, y.t);
      if (dir == miopenProblemDirectionBackward) {
        p.set(miopenTensorActivationDY, dy.t);
        p.set(miopenTensorActivationDX, dx.t);
      }
      const Solutions sols = find_solutions(h, p);
      ASSERT_GT(sols.size(), 0u);
      for (size_t i = 0; i < sols.size(); ++i) {
        if (dir == miopenProblemDirectionForward) {
          y.poison();
          ASSERT_EQ(run(h, sols[i],
                        arguments({{miopenTensorActivationX, x.data()},
                                   {miopenTensorActivationY, y.data()}})),
                    miopenStatusSuccess);
          expect_close(want.v, y.v, 1e-6);
        } else {
          dx.poison();
          ASSERT_EQ(run(h, sols[i],
                        arguments({{miopenTensorActivationX, x.data()},
                                   {miopenTensorActivationY, want.data()},
                                   {miopenTensorActivationDY, dy.data()},
                                   {miopenTensorActivationDX, dx.data()}})),
                    miopenStatusSuccess);
          expect_close(want_dx.v, dx.v, 1e-6);
        }
      }
    }
  }
}

TEST(Find2Layers, BiasForwardMatchesConvolutionForwardBias) {
  std::mt19937 rng(fresh_seed());
  Handle h;
  Data x({2, 6, 5, 7}, rng), b({1, 6, 1, 1}, rng), y({2, 6, 5, 7}, rng);
  std::vector<float> want = x.v;
  float one = 1.0f, zero = 0.0f;  // the legacy calls take alpha / beta as void*
  ASSERT_EQ(miopenConvolutionForwardBias(h, &one, b.t, b.data(), &zero, x.t, want.data()),
            miopenStatusSuccess);
  Find2Problem p = make_problem(create_bias_forward);
  p.set(miopenTensorBiasX, x.t);
  p.set(miopenTensorBias, b.t);
  p.set(miopenTensorBiasY, y.t);
  const Solutions sols = find_solutions(h, p);
  ASSERT_EQ(sols.size(), 1u);
  y.poison();
  ASSERT_EQ(run(h, sols[0],
                arguments({{miopenTensorBiasX, x.data()},
                           {miopenTensorBias, b.data()},
                           {miopenTensorBiasY, y.data()}})),
            miopenStatusSuccess);
  EXPECT_EQ(y.v, want);
  // In place: X and Y the same buffer.
  std::vector<float> inplace = x.v;
  ASSERT_EQ(run(h, sols[0],
                arguments({{miopenTensorBiasX, inplace.data()},
                           {miopenTensorBias, b.data()},
                           {miopenTensorBiasY, inplace.data()}})),
            miopenStatusSuccess);
  EXPECT_EQ(inplace, want);
}

// The batch-norm tensors of one problem: data, per-channel parameters and statistics.
struct BnData {
  std::mt19937 rng;
  Data x, y, dy, dx;
  Tensor param;
  std::vector<float> scale, bias, mean, var, smean, sinv, dscale, dbias;
  explicit BnData(unsigned seed)
      : rng(seed),
        x({2, 3, 5, 4}, rng),
        y({2, 3, 5, 4}, rng),
        dy({2, 3, 5, 4}, rng),
        dx({2, 3, 5, 4}, rng),
        param(miopenFloat, {1, 3, 1, 1}) {
    scale = random_floats(rng, 3, 0.5f, 1.5f);
    bias = random_floats(rng, 3);
    mean = random_floats(rng, 3);
    var = random_floats(rng, 3, 0.5f, 1.5f);
    smean = sinv = dscale = dbias = std::vector<float>(3, 0.0f);
  }
};

TEST(Find2Layers, BatchNormEveryDirectionMatchesTheLegacyCalls) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  Handle h;
  float one = 1.0f, zero = 0.0f;  // the legacy calls take alpha / beta as void*
  double eps = 1e-5, factor = 0.1;
  // Inference with the estimated statistics.
  {
    BnData a(seed), b(seed);
    ASSERT_EQ(miopenBatchNormalizationForwardInference(
                  h, miopenBNSpatial, &one, &zero, a.x.t, a.x.data(), a.y.t, a.y.data(), a.param,
                  a.scale.data(), a.bias.data(), a.mean.data(), a.var.data(), eps),
              miopenStatusSuccess);
    miopenProblem_t raw = nullptr;
    ASSERT_EQ(
        miopenCreateBatchnormProblem(&raw, miopenBNSpatial, false, miopenProblemDirectionInference),
        miopenStatusSuccess);
    Find2Problem p(raw);
    p.set(miopenTensorBatchnormX, b.x.t);
    p.set(miopenTensorBatchnormY, b.y.t);
    for (auto id : {miopenTensorBatchnormScale, miopenTensorBatchnormBias,
                    miopenTensorBatchnormEstimatedMean, miopenTensorBatchnormEstimatedVariance})
      p.set(id, b.param);
    const Solutions sols = find_solutions(h, p);
    ASSERT_GT(sols.size(), 0u);
    for (size_t i = 0; i < sols.size(); ++i) {
      b.y.poison();
      ASSERT_EQ(run(h, sols[i],
                    arguments({{miopenTensorBatchnormX, b.x.data()},
                               {miopenTensorBatchnormY, b.y.data()},
                               {miopenTensorBatchnormScale, b.scale.data()},
                               {miopenTensorBatchnormBias, b.bias.data()},
                               {miopenTensorBatchnormEstimatedMean, b.mean.data()},
                               {miopenTensorBatchnormEstimatedVariance, b.var.data()},
                               {miopenScalarBatchnormEpsilon, &eps}})),
                miopenStatusSuccess);
      expect_close(a.y.v, b.y.v, 1e-6);
    }
  }
  // Forward training, running statistics updated and the saved ones written.
  {
    BnData a(seed);
    ASSERT_EQ(miopenBatchNormalizationForwardTraining(
                  h, miopenBNSpatial, &one, &zero, a.x.t, a.x.data(), a.y.t, a.y.data(), a.param,
                  a.scale.data(), a.bias.data(), factor, a.mean.data(), a.var.data(), eps,
                  a.smean.data(), a.sinv.data()),
              miopenStatusSuccess);
    miopenProblem_t raw = nullptr;
    ASSERT_EQ(
        miopenCreateBatchnormProblem(&raw, miopenBNSpatial, true, miopenProblemDirectionForward),
        miopenStatusSuccess);
    Find2Problem p(raw);
    p.set(miopenTensorBatchnormX, a.x.t);
    p.set(miopenTensorBatchnormY, a.y.t);
    for (auto id : {miopenTensorBatchnormScale, miopenTensorBatchnormBias,
                    miopenTensorBatchnormRunningMean, miopenTensorBatchnormRunningVariance,
                    miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance})
      p.set(id, a.param);
    const Solutions sols = find_solutions(h, p);
    ASSERT_GT(sols.size(), 0u);
    for (size_t i = 0; i < sols.size(); ++i) {
      BnData b(seed);  // the running statistics as they were before the legacy call
      b.y.poison();
      ASSERT_EQ(run(h, sols[i],
                    arguments({{miopenTensorBatchnormX, b.x.data()},
                               {miopenTensorBatchnormY, b.y.data()},
                               {miopenTensorBatchnormScale, b.scale.data()},
                               {miopenTensorBatchnormBias, b.bias.data()},
                               {miopenTensorBatchnormRunningMean, b.mean.data()},
                               {miopenTensorBatchnormRunningVariance, b.var.data()},
                               {miopenTensorBatchnormSavedMean, b.smean.data()},
                               {miopenTensorBatchnormSavedVariance, b.sinv.data()},
                               {miopenScalarBatchnormExpAvgFactor, &factor},
                               {miopenScalarBatchnormEpsilon, &eps}})),
                miopenStatusSuccess);
      expect_close(a.y.v, b.y.v, 1e-6);
      expect_close(a.mean, b.mean, 1e-6);
      expect_close(a.var, b.var, 1e-6);
      expect_close(a.smean, b.smean, 1e-6);
      expect_close(a.sinv, b.sinv, 1e-6);
    }
  }
  // Backward with the saved statistics.
  {
    BnData a(seed);
    a.smean = a.mean;
    a.sinv = a.var;
    ASSERT_EQ(miopenBatchNormalizationBackward(h, miopenBNSpatial, &one, &zero, &one, &zero, a.x.t,
                                               a.x.data(), a.dy.t, a.dy.data(), a.dx.t, a.dx.data(),
                                               a.param, a.scale.data(), a.dscale.data(),
                                               a.dbias.data(), eps, a.smean.data(), a.sinv.data()),
              miopenStatusSuccess);
    miopenProblem_t raw = nullptr;
    ASSERT_EQ(
        miopenCreateBatchnormProblem(&raw, miopenBNSpatial, false, miopenProblemDirectionBackward),
        miopenStatusSuccess);
    Find2Problem p(raw);
    p.set(miopenTensorBatchnormX, a.x.t);
    p.set(miopenTensorBatchnormDY, a.dy.t);
    p.set(miopenTensorBatchnormDX, a.dx.t);
    for (auto id :
         {miopenTensorBatchnormScale, miopenTensorBatchnormScaleDiff, miopenTensorBatchnormBiasDiff,
          miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance})
      p.set(id, a.param);
    const Solutions sols = find_solutions(h, p);
    ASSERT_GT(sols.size(), 0u);
    for (size_t i = 0; i < sols.size(); ++i) {
      BnData b(seed);
      b.smean = a.smean;
      b.sinv = a.sinv;
      b.dx.poison();
      ASSERT_EQ(run(h, sols[i],
                    arguments({{miopenTensorBatchnormX, b.x.data()},
                               {miopenTensorBatchnormDY, b.dy.data()},
                               {miopenTensorBatchnormDX, b.dx.data()},
                               {miopenTensorBatchnormScale, b.scale.data()},
                               {miopenTensorBatchnormScaleDiff, b.dscale.data()},
                               {miopenTensorBatchnormBiasDiff, b.dbias.data()},
                               {miopenTensorBatchnormSavedMean, b.smean.data()},
                               {miopenTensorBatchnormSavedVariance, b.sinv.data()}})),
                miopenStatusSuccess);
      expect_close(a.dx.v, b.dx.v, 1e-6);
      expect_close(a.dscale, b.dscale, 1e-6);
      expect_close(a.dbias, b.dbias, 1e-6);
    }
  }
}

}  // namespace
}  // namespace anydnn::test
