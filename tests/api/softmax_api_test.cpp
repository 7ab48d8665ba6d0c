// Softmax through the public C API only: the descriptor calls, the legacy and _V2 calls for
// every algorithm and mode against the double reference (blending, in place), and bad input
// (status, one-line reason, nothing written).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "softmax_reference.hpp"

namespace anydnn::test {
namespace {

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

TEST(SoftmaxApi, DescriptorRoundTripsAndRejectsBadValues) {
  miopenSoftmaxDescriptor_t d = nullptr;
  ASSERT_EQ(miopenCreateSoftmaxDescriptor(&d), miopenStatusSuccess);
  ASSERT_EQ(
      miopenSetSoftmaxDescriptor(d, 0.5f, 0.25f, MIOPEN_SOFTMAX_LOG, MIOPEN_SOFTMAX_MODE_INSTANCE),
      miopenStatusSuccess);
  float a = 0, b = 0;
  miopenSoftmaxAlgorithm_t algo;
  miopenSoftmaxMode_t mode;
  ASSERT_EQ(miopenGetSoftmaxDescriptor(d, &a, &b, &algo, &mode), miopenStatusSuccess);
  EXPECT_EQ(a, 0.5f);
  EXPECT_EQ(b, 0.25f);
  EXPECT_EQ(algo, MIOPEN_SOFTMAX_LOG);
  EXPECT_EQ(mode, MIOPEN_SOFTMAX_MODE_INSTANCE);
  expect_failure(
      miopenStatusBadParm, "miopenSetSoftmaxDescriptor", "invalid softmax algorithm", [&] {
        return miopenSetSoftmaxDescriptor(d, 1, 0, static_cast<miopenSoftmaxAlgorithm_t>(3),
                                          MIOPEN_SOFTMAX_MODE_CHANNEL);
      });
  expect_failure(miopenStatusBadParm, "miopenGetSoftmaxDescriptor", "mode is a null pointer",
                 [&] { return miopenGetSoftmaxDescriptor(d, &a, &b, &algo, nullptr); });
  expect_failure(miopenStatusBadParm, "miopenCreateSoftmaxDescriptor", "null pointer",
                 [&] { return miopenCreateSoftmaxDescriptor(nullptr); });
  // MIOpen's API has no call that frees a softmax descriptor: every client leaks it, so this
  // test does too, and tells LeakSanitizer so.
#if defined(__SANITIZE_ADDRESS__)
  __lsan_ignore_object(d);
#endif
}

// Every algorithm and mode, forward then backward on its output, plain and blended.
TEST(SoftmaxApi, EveryAlgorithmAndModeMatchesTheReference) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  Tensor t(miopenFloat, {2, 5, 3, 7});
  const std::array<size_t, 4> lens = {2, 5, 3, 7};
  const size_t n = 2 * 5 * 3 * 7;
  for (int ai = 0; ai <= 2; ++ai)
    for (int mi = 0; mi <= 1; ++mi) {
      SCOPED_TRACE("algorithm " + std::to_string(ai) + " mode " + std::to_string(mi));
      const ref::SoftmaxDesc rd{static_cast<miopenSoftmaxAlgorithm_t>(ai),
                                static_cast<miopenSoftmaxMode_t>(mi)};
      std::vector<float> x = random_floats(rng, n, -3.0f, 3.0f), y(n, NAN), dx(n, NAN);
      const std::vector<float> dy = random_floats(rng, n);
      const float one = 1.0f, zero = 0.0f;
      ASSERT_EQ(
          miopenSoftmaxForward_V2(h, &one, t, x.data(), &zero, t, y.data(), rd.algorithm, rd.mode),
          miopenStatusSuccess);
      EXPECT_LT(ref::softmax_rms_error(ref::softmax_forward(rd, lens, as_double(x)), as_double(y)),
                1e-6);
      ASSERT_EQ(miopenSoftmaxBackward_V2(h, &one, t, y.data(), t, dy.data(), &zero, t, dx.data(),
                                         rd.algorithm, rd.mode),
                miopenStatusSuccess);
      const auto want_dx = ref::softmax_backward(rd, lens, as_double(y), as_double(dy));
      EXPECT_LT(ref::softmax_rms_error(want_dx, as_double(dx)), 1e-6);
      // Blended, in place over dy: dx = 0.5 f + 0.25 dx.
      const float a = 0.5f, b = 0.25f;
      std::vector<float> prior = random_floats(rng, n), d2 = prior;
      ASSERT_EQ(miopenSoftmaxBackward_V2(h, &a, t, y.data(), t, dy.data(), &b, t, d2.data(),
                                         rd.algorithm, rd.mode),
                miopenStatusSuccess);
      EXPECT_LT(ref::softmax_rms_error(ref::softmax_blend(want_dx, a, b, as_double(prior)),
                                       as_double(d2)),
                1e-6);
    }
}

// The legacy calls are ACCURATE in CHANNEL mode; in place (y over x) as frameworks call them.
TEST(SoftmaxApi, LegacyCallsAreAccurateChannelAndWorkInPlace) {
  Handle h;
  Tensor t(miopenFloat, {3, 10, 2, 2});
  const std::array<size_t, 4> lens = {3, 10, 2, 2};
  std::mt19937 rng(fresh_seed());
  const std::vector<float> x = random_floats(rng, 120, -50.0f, 50.0f);
  std::vector<float> buf = x;
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenSoftmaxForward(h, &one, t, buf.data(), &zero, t, buf.data()),
            miopenStatusSuccess);
  const auto want = ref::softmax_forward({}, lens, as_double(x));
  EXPECT_LT(ref::softmax_rms_error(want, as_double(buf)), 1e-6);
  std::vector<float> dy = random_floats(rng, 120), d = dy;
  ASSERT_EQ(miopenSoftmaxBackward(h, &one, t, buf.data(), t, d.data(), &zero, t, d.data()),
            miopenStatusSuccess);
  EXPECT_LT(ref::softmax_rms_error(ref::softmax_backward({}, lens, as_double(buf), as_double(dy)),
                                   as_double(d)),
            1e-6);
}

TEST(SoftmaxApi, BadInputReturnsStatusWithReasonAndWritesNothing) {
  Handle h;
  Tensor t(miopenFloat, {2, 3, 4, 5}), other(miopenFloat, {2, 3, 4, 4}),
      half(miopenHalf, {2, 3, 4, 5}), ints(miopenInt32, {2, 3, 4, 5}),
      three(miopenFloat, {2, 3, 20}), unset;
  std::vector<float> x(120, 1.0f), y(120, 7.0f), dy(120, 1.0f), dx(120, 7.0f);
  const float one = 1.0f, zero = 0.0f;
  const char* fn = "miopenSoftmaxForward_V2";
  auto fwd = [&](miopenTensorDescriptor_t xd, miopenTensorDescriptor_t yd, const void* xp, void* yp,
                 const void* alpha, int algo = 1, int mode = 1) {
    return [=, &h, &zero] {
      return miopenSoftmaxForward_V2(h, alpha, xd, xp, &zero, yd, yp,
                                     static_cast<miopenSoftmaxAlgorithm_t>(algo),
                                     static_cast<miopenSoftmaxMode_t>(mode));
    };
  };
  expect_failure(miopenStatusBadParm, "miopenSoftmaxForward", "handle", [&] {
    return miopenSoftmaxForward(nullptr, &one, t, x.data(), &zero, t, y.data());
  });
  expect_failure(miopenStatusBadParm, fn, "yDesc has not been set",
                 fwd(t, unset, x.data(), y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "yDesc is 2x3x4x4 but xDesc is 2x3x4x5",
                 fwd(t, other, x.data(), y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "yDesc is FP16 but xDesc is FP32",
                 fwd(t, half, x.data(), y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "4-D", fwd(three, three, x.data(), y.data(), &one));
  expect_failure(miopenStatusNotImplemented, fn, "float, half and bfloat16",
                 fwd(ints, ints, x.data(), y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "x is a null pointer",
                 fwd(t, t, nullptr, y.data(), &one));
  expect_failure(miopenStatusBadParm, fn, "alpha is a null pointer",
                 fwd(t, t, x.data(), y.data(), nullptr));
  expect_failure(miopenStatusBadParm, fn, "invalid softmax algorithm",
                 fwd(t, t, x.data(), y.data(), &one, 7));
  expect_failure(miopenStatusBadParm, fn, "invalid softmax mode",
                 fwd(t, t, x.data(), y.data(), &one, 1, 2));
  expect_failure(miopenStatusBadParm, "miopenSoftmaxBackward", "dy is a null pointer", [&] {
    return miopenSoftmaxBackward(h, &one, t, y.data(), t, nullptr, &zero, t, dx.data());
  });
  expect_failure(miopenStatusBadParm, "miopenSoftmaxBackward", "beta is a null pointer", [&] {
    return miopenSoftmaxBackward(h, &one, t, y.data(), t, dy.data(), nullptr, t, dx.data());
  });
  expect_failure(miopenStatusBadParm, "miopenSoftmaxBackward", "dxDesc is 2x3x4x4", [&] {
    return miopenSoftmaxBackward(h, &one, t, y.data(), t, dy.data(), &zero, other, dx.data());
  });
  for (float v : y)
    EXPECT_EQ(v, 7.0f);
  for (float v : dx)
    EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace anydnn::test
