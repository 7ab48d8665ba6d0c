// Activation through the public C API only: the descriptor calls, forward and backward for every
// mode against the double reference (blending, in place, strided), MIOpen's edge rules, and bad
// input (status, one-line reason, nothing written).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "activation_reference.hpp"
#include "api/api_test_util.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

TEST(ActivationApi, DescriptorRoundTripsAndRejectsBadModes) {
  miopenActivationDescriptor_t d = nullptr;
  ASSERT_EQ(miopenCreateActivationDescriptor(&d), miopenStatusSuccess);
  ASSERT_EQ(miopenSetActivationDescriptor(d, miopenActivationPOWER, 0.5, 1.5, 2.5),
            miopenStatusSuccess);
  miopenActivationMode_t m;
  double a, b, g;
  ASSERT_EQ(miopenGetActivationDescriptor(d, &m, &a, &b, &g), miopenStatusSuccess);
  EXPECT_EQ(m, miopenActivationPOWER);
  EXPECT_EQ(a, 0.5);
  EXPECT_EQ(b, 1.5);
  EXPECT_EQ(g, 2.5);
  expect_failure(
      miopenStatusBadParm, "miopenSetActivationDescriptor", "invalid activation mode", [&] {
        return miopenSetActivationDescriptor(d, static_cast<miopenActivationMode_t>(10), 1, 1, 1);
      });
  expect_failure(miopenStatusBadParm, "miopenGetActivationDescriptor", "mode is a null pointer",
                 [&] { return miopenGetActivationDescriptor(d, nullptr, &a, &b, &g); });
  ASSERT_EQ(miopenDestroyActivationDescriptor(d), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenCreateActivationDescriptor", "null pointer",
                 [&] { return miopenCreateActivationDescriptor(nullptr); });
  expect_failure(miopenStatusBadParm, "miopenDestroyActivationDescriptor", "null pointer",
                 [&] { return miopenDestroyActivationDescriptor(nullptr); });
}

// Every mode, forward then backward on its output, plain and blended, against the reference.
TEST(ActivationApi, EveryModeMatchesTheReference) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  Tensor t(miopenFloat, {2, 3, 5, 7});
  const size_t n = 2 * 3 * 5 * 7;
  for (int mi = 0; mi <= 9; ++mi) {
    const ref::ActivationDesc rd{static_cast<miopenActivationMode_t>(mi), 0.6, 1.4, 2.0};
    SCOPED_TRACE("mode " + std::to_string(mi));
    Activ act(rd.mode, rd.alpha, rd.beta, rd.gamma);
    std::vector<float> x(n), dy = random_floats(rng, n), y(n, NAN), dx(n, NAN);
    for (size_t i = 0; i < n; ++i)
      x[i] = static_cast<float>(ref::activation_input(rd, i, rng));
    const float one = 1.0f, zero = 0.0f;
    ASSERT_EQ(miopenActivationForward(h, act, &one, t, x.data(), &zero, t, y.data()),
              miopenStatusSuccess);
    const double tol = ref::activation_tolerance(miopenFloat);
    EXPECT_EQ(
        ref::activation_mismatch(ref::activation_forward(rd, as_double(x)), as_double(y), tol), -1);
    ASSERT_EQ(miopenActivationBackward(h, act, &one, t, y.data(), t, dy.data(), t, x.data(), &zero,
                                       t, dx.data()),
              miopenStatusSuccess);
    const auto want_dx = ref::activation_backward(rd, as_double(dy), as_double(x), as_double(y));
    EXPECT_EQ(ref::activation_mismatch(want_dx, as_double(dx), tol), -1);
    // Blended: out = 0.5 f + 0.25 out.
    const float a = 0.5f, b = 0.25f;
    std::vector<float> y2 = random_floats(rng, n), prior = y2;
    ASSERT_EQ(miopenActivationForward(h, act, &a, t, x.data(), &b, t, y2.data()),
              miopenStatusSuccess);
    std::vector<double> want = ref::activation_forward(rd, as_double(x));
    for (size_t i = 0; i < n; ++i)
      want[i] = a * want[i] + b * prior[i];
    EXPECT_EQ(ref::activation_mismatch(want, as_double(y2), tol), -1);
  }
}

// In place, as frameworks call it (y over x, dx over dy), and x / y in different layouts.
TEST(ActivationApi, InPlaceAndMixedLayouts) {
  Handle h;
  Tensor t(miopenFloat, {2, 3, 4, 5});
  Activ elu(miopenActivationELU, 0.9, 0, 0);
  const ref::ActivationDesc rd{miopenActivationELU, 0.9, 0, 0};
  std::mt19937 rng(fresh_seed());
  std::vector<float> x = random_floats(rng, 120, -2.0f, 2.0f), buf = x;
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenActivationForward(h, elu, &one, t, buf.data(), &zero, t, buf.data()),
            miopenStatusSuccess);
  const auto want = ref::activation_forward(rd, as_double(x));
  EXPECT_EQ(ref::activation_mismatch(want, as_double(buf), 1e-5), -1);
  std::vector<float> dy = random_floats(rng, 120), d = dy;
  ASSERT_EQ(miopenActivationBackward(h, elu, &one, t, buf.data(), t, d.data(), t, x.data(), &zero,
                                     t, d.data()),
            miopenStatusSuccess);
  EXPECT_EQ(ref::activation_mismatch(
                ref::activation_backward(rd, as_double(dy), as_double(x), as_double(buf)),
                as_double(d), 1e-5),
            -1);
  // x NHWC, y NCHW.
  Tensor nhwc;
  const int lens[] = {2, 3, 4, 5};
  ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(nhwc, miopenFloat, miopenTensorNHWC, lens, 4),
            miopenStatusSuccess);
  std::vector<float> xn(120), y(120, NAN);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int hw = 0; hw < 20; ++hw)
        xn[static_cast<size_t>(n * 60 + hw * 3 + c)] = x[static_cast<size_t>(n * 60 + c * 20 + hw)];
  ASSERT_EQ(miopenActivationForward(h, elu, &one, nhwc, xn.data(), &zero, t, y.data()),
            miopenStatusSuccess);
  EXPECT_EQ(ref::activation_mismatch(want, as_double(y), 1e-5), -1);
}

// MIOpen's kernels: TANH backward is 0 for |beta| <= eps; POWER backward ignores dy.
TEST(ActivationApi, MiopenEdgeRules) {
  Handle h;
  Tensor t(miopenFloat, {1, 1, 1, 4});
  const float one = 1.0f, zero = 0.0f;
  std::vector<float> x = {-1.0f, -0.5f, 0.5f, 1.0f}, y(4, 0.0f), dy = {1, 2, 3, 4}, dx(4, NAN);
  Activ tanh0(miopenActivationTANH, 1.0, 0.0, 0.0);
  ASSERT_EQ(miopenActivationBackward(h, tanh0, &one, t, y.data(), t, dy.data(), t, x.data(), &zero,
                                     t, dx.data()),
            miopenStatusSuccess);
  for (float v : dx)
    EXPECT_EQ(v, 0.0f);
  Activ power(miopenActivationPOWER, 2.0, 1.0, 2.0);
  ASSERT_EQ(miopenActivationForward(h, power, &one, t, x.data(), &zero, t, y.data()),
            miopenStatusSuccess);
  std::vector<float> dx1(4), dx2(4), dy2 = {-5, 0, 7, 9};
  ASSERT_EQ(miopenActivationBackward(h, power, &one, t, y.data(), t, dy.data(), t, x.data(), &zero,
                                     t, dx1.data()),
            miopenStatusSuccess);
  ASSERT_EQ(miopenActivationBackward(h, power, &one, t, y.data(), t, dy2.data(), t, x.data(), &zero,
                                     t, dx2.data()),
            miopenStatusSuccess);
  EXPECT_EQ(dx1, dx2);
  EXPECT_FLOAT_EQ(dx1[3], 2.0f * 1.0f * 9.0f / 3.0f);  // gamma * beta * y / (alpha + beta x)
}

TEST(ActivationApi, BadInputReturnsStatusWithReasonAndWritesNothing) {
  Handle h;
  Tensor t(miopenFloat, {2, 3, 4, 5}), other(miopenFloat, {2, 3, 4, 4}),
      half(miopenHalf, {2, 3, 4, 5}), ints(miopenInt32, {2, 3, 4, 5}), unset;
  Activ relu(miopenActivationRELU, 0, 0, 0);
  std::vector<float> x(120, 1.0f), y(120, 7.0f), dy(120, 1.0f), dx(120, 7.0f);
  const float one = 1.0f, zero = 0.0f;
  auto fwd = [&](miopenHandle_t hh, miopenActivationDescriptor_t a, miopenTensorDescriptor_t xd,
                 const void* xp, miopenTensorDescriptor_t yd, void* yp, const void* alpha) {
    return [=, &zero] { return miopenActivationForward(hh, a, alpha, xd, xp, &zero, yd, yp); };
  };
  const char* fn = "miopenActivationForward";
  expect_failure(miopenStatusBadParm, fn, "handle",
                 fwd(nullptr, relu, t, x.data(), t, y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "activDesc is a null pointer",
                 fwd(h, nullptr, t, x.data(), t, y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "yDesc has not been set",
                 fwd(h, relu, t, x.data(), unset, y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "element counts differ",
                 fwd(h, relu, t, x.data(), other, y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "yDesc is FP16 but xDesc is FP32",
                 fwd(h, relu, t, x.data(), half, y.data(), &one));
  expect_failure(miopenStatusNotImplemented, fn, "float, half and bfloat16",
                 fwd(h, relu, ints, x.data(), ints, y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "x is a null pointer",
                 fwd(h, relu, t, nullptr, t, y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "y is a null pointer",
                 fwd(h, relu, t, x.data(), t, nullptr, &one));
  expect_failure(miopenStatusBadParm, fn, "alpha is a null pointer",
                 fwd(h, relu, t, x.data(), t, y.data(), nullptr));
  Tensor overlap;
  const int lens[] = {2, 3, 4, 5}, strides[] = {1, 1, 1, 1};
  ASSERT_EQ(miopenSetTensorDescriptor(overlap, miopenFloat, 4, lens, strides), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, fn, "overlap",
                 fwd(h, relu, t, x.data(), overlap, y.data(), &one));
  const char* bfn = "miopenActivationBackward";
  expect_failure(miopenStatusBadParm, bfn, "dxDesc is 2x3x4x4 but xDesc is 2x3x4x5", [&] {
    return miopenActivationBackward(h, relu, &one, t, y.data(), t, dy.data(), t, x.data(), &zero,
                                    other, dx.data());
  });
  expect_failure(miopenStatusBadParm, bfn, "dy is a null pointer", [&] {
    return miopenActivationBackward(h, relu, &one, t, y.data(), t, nullptr, t, x.data(), &zero, t,
                                    dx.data());
  });
  expect_failure(miopenStatusBadParm, bfn, "beta is a null pointer", [&] {
    return miopenActivationBackward(h, relu, &one, t, y.data(), t, dy.data(), t, x.data(), nullptr,
                                    t, dx.data());
  });
  for (float v : y)
    EXPECT_EQ(v, 7.0f);
  for (float v : dx)
    EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace anydnn::test
