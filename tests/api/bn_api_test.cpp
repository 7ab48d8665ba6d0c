// Batch normalization through the public C API: the derived descriptor, V1 and V2 calls against
// the double reference, MIOpen's null-pointer rules, and every kind of bad input returning its
// status with a one-line reason while leaving the outputs untouched.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/api_test_util.hpp"
#include "bn_reference.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

std::vector<int> lens_of(miopenTensorDescriptor_t d) {
  int n = 0;
  EXPECT_EQ(miopenGetTensorDescriptorSize(d, &n), miopenStatusSuccess);
  std::vector<int> lens(static_cast<size_t>(n)), strides(lens.size());
  miopenDataType_t t;
  EXPECT_EQ(miopenGetTensorDescriptor(d, &t, lens.data(), strides.data()), miopenStatusSuccess);
  return lens;
}

miopenDataType_t type_of(miopenTensorDescriptor_t d) {
  int n = 0;
  miopenGetTensorDescriptorSize(d, &n);
  std::vector<int> lens(static_cast<size_t>(n)), strides(lens.size());
  miopenDataType_t t = miopenInt8;
  miopenGetTensorDescriptor(d, &t, lens.data(), strides.data());
  return t;
}

TEST(BnApi, DeriveDescriptorFollowsMIOpen) {
  Tensor x(miopenFloat, {2, 3, 4, 5}), x5(miopenHalf, {2, 3, 4, 5, 6}),
      xb(miopenBFloat16, {1, 2, 3, 4});
  Tensor d;
  ASSERT_EQ(miopenDeriveBNTensorDescriptor(d, x, miopenBNSpatial), miopenStatusSuccess);
  EXPECT_EQ(lens_of(d), (std::vector<int>{1, 3, 1, 1}));
  EXPECT_EQ(type_of(d), miopenFloat);
  ASSERT_EQ(miopenDeriveBNTensorDescriptor(d, x, miopenBNPerActivation), miopenStatusSuccess);
  EXPECT_EQ(lens_of(d), (std::vector<int>{1, 3, 4, 5}));
  ASSERT_EQ(miopenDeriveBNTensorDescriptor(d, x5, miopenBNSpatial), miopenStatusSuccess);
  EXPECT_EQ(lens_of(d), (std::vector<int>{1, 3, 1, 1, 1}));
  EXPECT_EQ(type_of(d), miopenFloat) << "fp16 data: fp32 parameters (mixed mode)";
  ASSERT_EQ(miopenDeriveBNTensorDescriptor(d, x5, miopenBNPerActivation), miopenStatusSuccess);
  EXPECT_EQ(lens_of(d), (std::vector<int>{1, 3, 4, 5, 6}));
  ASSERT_EQ(miopenDeriveBNTensorDescriptor(d, xb, miopenBNSpatial), miopenStatusSuccess);
  EXPECT_EQ(type_of(d), miopenFloat);

  Tensor x3(miopenFloat, {2, 3, 4}), unset;
  expect_failure(miopenStatusBadParm, "miopenDeriveBNTensorDescriptor", "4-D or 5-D",
                 [&] { return miopenDeriveBNTensorDescriptor(d, x3, miopenBNSpatial); });
  expect_failure(
      miopenStatusBadParm, "miopenDeriveBNTensorDescriptor", "not a miopenBatchNormMode_t",
      [&] { return miopenDeriveBNTensorDescriptor(d, x, static_cast<miopenBatchNormMode_t>(7)); });
  expect_failure(miopenStatusBadParm, "miopenDeriveBNTensorDescriptor", "has not been set",
                 [&] { return miopenDeriveBNTensorDescriptor(d, unset, miopenBNSpatial); });
  expect_failure(miopenStatusBadParm, "miopenDeriveBNTensorDescriptor", "derivedBnDesc",
                 [&] { return miopenDeriveBNTensorDescriptor(nullptr, x, miopenBNSpatial); });
}

// Host buffers of one spatial NCHW fp32 problem.
struct Problem {
  Handle h;
  Tensor x{miopenFloat, {3, 4, 5, 6}}, p;
  std::vector<float> hx, hy, hdy, hdx, scale, bias, rm, rv, sm, sv, ds, db;
  float one = 1.0f, zero = 0.0f;
  Problem() {
    EXPECT_EQ(miopenDeriveBNTensorDescriptor(p, x, miopenBNSpatial), miopenStatusSuccess);
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto fill = [&](std::vector<float>& v, size_t n, float lo, float hi) {
      v.resize(n);
      for (auto& e : v)
        e = lo + (hi - lo) * (u(rng) + 1.0f) / 2.0f;
    };
    fill(hx, 360, -1, 1);
    fill(hdy, 360, -1, 1);
    hy.assign(360, NAN);
    hdx.assign(360, NAN);
    fill(scale, 4, 0.5f, 1.5f);
    fill(bias, 4, -0.5f, 0.5f);
    fill(rm, 4, -0.1f, 0.1f);
    fill(rv, 4, 0.5f, 1.5f);
    sm.assign(4, NAN);
    sv.assign(4, NAN);
    ds.assign(4, NAN);
    db.assign(4, NAN);
  }
  ref::TensorView view(const std::vector<float>& v) const {
    return {v.data(), miopenFloat, {3, 4, 5, 6}, {120, 30, 6, 1}};
  }
  static std::vector<double> d(const std::vector<float>& v) { return {v.begin(), v.end()}; }
};

TEST(BnApi, TrainingV1AndV2MatchTheReference) {
  for (bool v2 : {false, true}) {
    Problem t;
    const auto rm0 = t.rm, rv0 = t.rv;
    miopenStatus_t s;
    if (v2) {
      s = miopenBatchNormalizationForwardTraining_V2(
          t.h, miopenBNSpatial, &t.one, &t.zero, t.x, t.hx.data(), t.x, t.hy.data(), t.p, t.p, t.p,
          t.p, t.scale.data(), t.bias.data(), 0.1, t.rm.data(), t.rv.data(), 1e-5, t.sm.data(),
          t.sv.data());
    } else {
      s = miopenBatchNormalizationForwardTraining(t.h, miopenBNSpatial, &t.one, &t.zero, t.x,
                                                  t.hx.data(), t.x, t.hy.data(), t.p,
                                                  t.scale.data(), t.bias.data(), 0.1, t.rm.data(),
                                                  t.rv.data(), 1e-5, t.sm.data(), t.sv.data());
    }
    ASSERT_EQ(s, miopenStatusSuccess);
    const auto r =
        ref::bn_forward_training(t.view(t.hx), miopenBNSpatial, Problem::d(t.scale),
                                 Problem::d(t.bias), 1e-5, 0.1, Problem::d(rm0), Problem::d(rv0));
    EXPECT_LT(ref::relative_rms(r.y, Problem::d(t.hy)), 1e-5);
    EXPECT_LT(ref::relative_rms(r.mean, Problem::d(t.sm)), 1e-5);
    EXPECT_LT(ref::relative_rms(r.invstd, Problem::d(t.sv)), 1e-5);
    EXPECT_LT(ref::relative_rms(r.running_mean, Problem::d(t.rm)), 1e-5);
    EXPECT_LT(ref::relative_rms(r.running_var, Problem::d(t.rv)), 1e-5);

    // Backward with the saved statistics, V1 or V2.
    if (v2) {
      s = miopenBatchNormalizationBackward_V2(
          t.h, miopenBNSpatial, &t.one, &t.zero, &t.one, &t.zero, t.x, t.hx.data(), t.x,
          t.hdy.data(), t.x, t.hdx.data(), t.p, t.p, t.p, t.p, t.scale.data(), t.ds.data(),
          t.db.data(), 1e-5, t.sm.data(), t.sv.data());
    } else {
      s = miopenBatchNormalizationBackward(t.h, miopenBNSpatial, &t.one, &t.zero, &t.one, &t.zero,
                                           t.x, t.hx.data(), t.x, t.hdy.data(), t.x, t.hdx.data(),
                                           t.p, t.scale.data(), t.ds.data(), t.db.data(), 1e-5,
                                           t.sm.data(), t.sv.data());
    }
    ASSERT_EQ(s, miopenStatusSuccess);
    const auto b = ref::bn_backward(t.view(t.hx), t.view(t.hdy), miopenBNSpatial,
                                    Problem::d(t.scale), 1e-5, Problem::d(t.sm), Problem::d(t.sv));
    EXPECT_LT(ref::relative_rms(b.dx, Problem::d(t.hdx)), 1e-5);
    EXPECT_LT(ref::relative_rms(b.dscale, Problem::d(t.ds)), 1e-5);
    EXPECT_LT(ref::relative_rms(b.dbias, Problem::d(t.db)), 1e-5);
  }
}

TEST(BnApi, NullPointerPairsMeanDoNotSaveOrUpdate) {
  Problem t;
  const auto rm0 = t.rm;
  // Only one running pointer: neither is touched (and the call succeeds).
  testing::internal::CaptureStderr();
  ASSERT_EQ(miopenBatchNormalizationForwardTraining(
                t.h, miopenBNSpatial, &t.one, &t.zero, t.x, t.hx.data(), t.x, t.hy.data(), t.p,
                t.scale.data(), t.bias.data(), 1.0, t.rm.data(), nullptr, 1e-5, nullptr, nullptr),
            miopenStatusSuccess);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(t.rm, rm0);
  EXPECT_NE(log.find("only one of the running mean / variance pointers"), std::string::npos) << log;

  // Inference without estimates normalises with the batch statistics.
  ASSERT_EQ(miopenBatchNormalizationForwardInference(
                t.h, miopenBNSpatial, &t.one, &t.zero, t.x, t.hx.data(), t.x, t.hy.data(), t.p,
                t.scale.data(), t.bias.data(), nullptr, t.rv.data(), 1e-5),
            miopenStatusSuccess);
  const auto y = ref::bn_forward_inference(t.view(t.hx), miopenBNSpatial, Problem::d(t.scale),
                                           Problem::d(t.bias), {}, {}, 1e-5);
  EXPECT_LT(ref::relative_rms(y, Problem::d(t.hy)), 1e-5);

  // Backward without saved statistics recomputes them (with epsilon).
  ASSERT_EQ(miopenBatchNormalizationBackward(t.h, miopenBNSpatial, &t.one, &t.zero, &t.one, &t.zero,
                                             t.x, t.hx.data(), t.x, t.hdy.data(), t.x, t.hdx.data(),
                                             t.p, t.scale.data(), t.ds.data(), t.db.data(), 1e-3,
                                             nullptr, nullptr),
            miopenStatusSuccess);
  const auto b = ref::bn_backward(t.view(t.hx), t.view(t.hdy), miopenBNSpatial, Problem::d(t.scale),
                                  1e-3, {}, {});
  EXPECT_LT(ref::relative_rms(b.dx, Problem::d(t.hdx)), 1e-5);
}

TEST(BnApi, BadInputReturnsStatusWithReasonAndWritesNothing) {
  Problem t;
  Tensor wrong_y(miopenFloat, {3, 4, 5, 7}), half_y(miopenHalf, {3, 4, 5, 6}),
      wrong_p(miopenFloat, {1, 5, 1, 1}), int8_x(miopenInt8, {3, 4, 5, 6}), unset;
  const auto y0 = t.hy;
  auto train = [&](miopenTensorDescriptor_t x, miopenTensorDescriptor_t y,
                   miopenTensorDescriptor_t p, const void* xp, void* alpha, double eps) {
    return [&t, x, y, p, xp, alpha, eps] {
      return miopenBatchNormalizationForwardTraining(
          t.h, miopenBNSpatial, alpha, &t.zero, x, xp, y, t.hy.data(), p, t.scale.data(),
          t.bias.data(), 1.0, t.rm.data(), t.rv.data(), eps, t.sm.data(), t.sv.data());
    };
  };
  const char* fn = "miopenBatchNormalizationForwardTraining";
  expect_failure(miopenStatusBadParm, fn, "yDesc is 3x4x5x7 but xDesc is 3x4x5x6",
                 train(t.x, wrong_y, t.p, t.hx.data(), &t.one, 1e-5));
  expect_failure(miopenStatusBadParm, fn, "different data types",
                 train(t.x, half_y, t.p, t.hx.data(), &t.one, 1e-5));
  expect_failure(miopenStatusBadParm, fn, "scale descriptor is 1x5x1x1, the mode needs 1x4x1x1",
                 train(t.x, t.x, wrong_p, t.hx.data(), &t.one, 1e-5));
  expect_failure(miopenStatusBadParm, fn, "epsilon = -1",
                 train(t.x, t.x, t.p, t.hx.data(), &t.one, -1.0));
  expect_failure(miopenStatusBadParm, fn, "x is a null pointer",
                 train(t.x, t.x, t.p, nullptr, &t.one, 1e-5));
  expect_failure(miopenStatusBadParm, fn, "alpha is a null pointer",
                 train(t.x, t.x, t.p, t.hx.data(), nullptr, 1e-5));
  expect_failure(miopenStatusBadParm, fn, "yDesc has not been set",
                 train(t.x, unset, t.p, t.hx.data(), &t.one, 1e-5));
  Tensor p8;
  ASSERT_EQ(miopenDeriveBNTensorDescriptor(p8, int8_x, miopenBNSpatial), miopenStatusSuccess);
  expect_failure(miopenStatusNotImplemented, fn, "float, half and bfloat16",
                 train(int8_x, int8_x, p8, t.hx.data(), &t.one, 1e-5));
  expect_failure(miopenStatusBadParm, "miopenBatchNormalizationForwardInference",
                 "not a miopenBatchNormMode_t", [&] {
                   return miopenBatchNormalizationForwardInference(
                       t.h, static_cast<miopenBatchNormMode_t>(2), &t.one, &t.zero, t.x,
                       t.hx.data(), t.x, t.hy.data(), t.p, t.scale.data(), t.bias.data(), nullptr,
                       nullptr, 1e-5);
                 });
  expect_failure(miopenStatusBadParm, "miopenBatchNormalizationBackward", "resultBnScaleDiff", [&] {
    return miopenBatchNormalizationBackward(
        t.h, miopenBNSpatial, &t.one, &t.zero, &t.one, &t.zero, t.x, t.hx.data(), t.x, t.hdy.data(),
        t.x, t.hdx.data(), t.p, t.scale.data(), nullptr, t.db.data(), 1e-5, nullptr, nullptr);
  });
  expect_failure(miopenStatusBadParm, "miopenBatchNormalizationBackward", "handle", [&] {
    return miopenBatchNormalizationBackward(nullptr, miopenBNSpatial, &t.one, &t.zero, &t.one,
                                            &t.zero, t.x, t.hx.data(), t.x, t.hdy.data(), t.x,
                                            t.hdx.data(), t.p, t.scale.data(), t.ds.data(),
                                            t.db.data(), 1e-5, nullptr, nullptr);
  });
  // Nothing was written by any failed call.
  EXPECT_EQ(std::memcmp(t.hy.data(), y0.data(), y0.size() * sizeof(float)), 0);
  for (float v : t.sm)
    EXPECT_TRUE(std::isnan(v));
  for (float v : t.ds)
    EXPECT_TRUE(std::isnan(v));
}

TEST(BnApi, EpsilonZeroIsAcceptedAsMIOpenDocuments) {
  // "If variance is zero and epsilon is also zero, this function outputs NAN values."
  Problem t;
  std::fill(t.hx.begin(), t.hx.end(), 0.5f);
  ASSERT_EQ(miopenBatchNormalizationForwardTraining(
                t.h, miopenBNSpatial, &t.one, &t.zero, t.x, t.hx.data(), t.x, t.hy.data(), t.p,
                t.scale.data(), t.bias.data(), 1.0, nullptr, nullptr, 0.0, nullptr, nullptr),
            miopenStatusSuccess);
  EXPECT_TRUE(std::isnan(t.hy[0]));
}

// The LogCmdBNorm line is checked end to end by the driver.logged_bnorm_* replay tests (the
// environment is read once per process, so it cannot be switched on here).

}  // namespace
}  // namespace anydnn::test
