// LRN through the public C API only: the descriptor calls, MIOpen's workspace size, forward
// (keeping the scale or not) and backward in both modes against the double reference, alpha /
// beta ignored as MIOpen ignores them, and bad input (status, one-line reason, nothing written).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "lrn_reference.hpp"

namespace anydnn::test {
namespace {

struct Lrn {
  miopenLRNDescriptor_t d = nullptr;
  Lrn() { EXPECT_EQ(miopenCreateLRNDescriptor(&d), miopenStatusSuccess); }
  Lrn(miopenLRNMode_t mode, unsigned n, double alpha, double beta, double k) : Lrn() {
    EXPECT_EQ(miopenSetLRNDescriptor(d, mode, n, alpha, beta, k), miopenStatusSuccess);
  }
  ~Lrn() { miopenDestroyLRNDescriptor(d); }
  operator miopenLRNDescriptor_t() const { return d; }
};

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

double max_abs_diff(const std::vector<double>& a, const std::vector<float>& b) {
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (!(d <= m)) m = d;  // NaN sticks
  }
  return m;
}

TEST(LrnApi, DescriptorRoundTripsAndRejectsBadValues) {
  miopenLRNDescriptor_t d = nullptr;
  ASSERT_EQ(miopenCreateLRNDescriptor(&d), miopenStatusSuccess);
  miopenLRNMode_t mode = miopenLRNCrossChannel;
  unsigned n = 9;
  double a = 9, b = 9, k = 9;
  // A new descriptor: within channel, lrnN 0, zeros.
  ASSERT_EQ(miopenGetLRNDescriptor(d, &mode, &n, &a, &b, &k), miopenStatusSuccess);
  EXPECT_EQ(mode, miopenLRNWithinChannel);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(a, 0.0);
  ASSERT_EQ(miopenSetLRNDescriptor(d, miopenLRNCrossChannel, 5, 1e-4, 0.75, 2.0),
            miopenStatusSuccess);
  ASSERT_EQ(miopenGetLRNDescriptor(d, &mode, &n, &a, &b, &k), miopenStatusSuccess);
  EXPECT_EQ(mode, miopenLRNCrossChannel);
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(a, 1e-4);
  EXPECT_EQ(b, 0.75);
  EXPECT_EQ(k, 2.0);
  // lrnN 0 and K 0 are stored (MIOpen's Set checks nothing); the compute calls reject them.
  ASSERT_EQ(miopenSetLRNDescriptor(d, miopenLRNWithinChannel, 0, 1, 1, 0), miopenStatusSuccess);
  ASSERT_EQ(miopenGetLRNDescriptor(d, &mode, &n, &a, &b, &k), miopenStatusSuccess);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(k, 0.0);
  expect_failure(miopenStatusBadParm, "miopenSetLRNDescriptor", "invalid LRN mode 2", [&] {
    return miopenSetLRNDescriptor(d, static_cast<miopenLRNMode_t>(2), 5, 1, 1, 1);
  });
  expect_failure(miopenStatusBadParm, "miopenGetLRNDescriptor", "lrnK is a null pointer",
                 [&] { return miopenGetLRNDescriptor(d, &mode, &n, &a, &b, nullptr); });
  expect_failure(miopenStatusBadParm, "miopenCreateLRNDescriptor", "null pointer",
                 [&] { return miopenCreateLRNDescriptor(nullptr); });
  // A pointer to another kind of object is told apart from an LRN descriptor (a destroyed one
  // cannot be tested: reading freed memory is itself the error AddressSanitizer reports).
  Tensor t(miopenFloat, {1, 3, 2, 2});
  expect_failure(miopenStatusBadParm, "miopenGetLRNDescriptor", "does not point to a live object",
                 [&] {
                   return miopenGetLRNDescriptor(reinterpret_cast<miopenLRNDescriptor_t>(t.d),
                                                 &mode, &n, &a, &b, &k);
                 });
  ASSERT_EQ(miopenDestroyLRNDescriptor(d), miopenStatusSuccess);
}

// MIOpen's size: n * (n stride) * sizeof(float), for every data type.
TEST(LrnApi, WorkspaceSizeIsMiopens) {
  Tensor f(miopenFloat, {2, 3, 4, 5}), h(miopenHalf, {2, 3, 4, 5}), unset;
  size_t ws = 0;
  ASSERT_EQ(miopenLRNGetWorkSpaceSize(f, &ws), miopenStatusSuccess);
  EXPECT_EQ(ws, 2u * 60 * 4);
  ASSERT_EQ(miopenLRNGetWorkSpaceSize(h, &ws), miopenStatusSuccess);
  EXPECT_EQ(ws, 2u * 60 * 4);
  Tensor padded;
  const int lens[4] = {2, 3, 4, 5}, strides[4] = {96, 24, 6, 1};
  ASSERT_EQ(miopenSetTensorDescriptor(padded, miopenFloat, 4, lens, strides), miopenStatusSuccess);
  ASSERT_EQ(miopenLRNGetWorkSpaceSize(padded, &ws), miopenStatusSuccess);
  EXPECT_EQ(ws, 2u * 96 * 4);
  expect_failure(miopenStatusBadParm, "miopenLRNGetWorkSpaceSize", "yDesc has not been set",
                 [&] { return miopenLRNGetWorkSpaceSize(unset, &ws); });
  expect_failure(miopenStatusBadParm, "miopenLRNGetWorkSpaceSize", "workSpaceSize is a null",
                 [&] { return miopenLRNGetWorkSpaceSize(f, nullptr); });
}

// Both modes, odd and even lrnN: forward keeping the scale, forward without (same y, workspace
// untouched), backward from the kept scale.
TEST(LrnApi, ForwardAndBackwardMatchTheReference) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  Tensor t(miopenFloat, {2, 7, 5, 6});
  const std::array<size_t, 4> lens = {2, 7, 5, 6};
  const size_t count = 2 * 7 * 5 * 6;
  size_t ws_bytes = 0;
  ASSERT_EQ(miopenLRNGetWorkSpaceSize(t, &ws_bytes), miopenStatusSuccess);
  for (int m = 0; m <= 1; ++m)
    for (unsigned n : {3u, 4u}) {
      SCOPED_TRACE("mode " + std::to_string(m) + " lrnN " + std::to_string(n));
      const ref::LrnDesc rd{static_cast<miopenLRNMode_t>(m), n, 1.5, 0.75, 2.0};
      Lrn desc(rd.mode, rd.n, rd.alpha, rd.beta, rd.k);
      const std::vector<float> x = random_floats(rng, count, -2.0f, 2.0f),
                               dy = random_floats(rng, count);
      std::vector<float> y(count, NAN), y2(count, NAN), dx(count, NAN),
          ws(ws_bytes / sizeof(float), NAN);
      const float one = 1.0f, zero = 0.0f;
      ASSERT_EQ(miopenLRNForward(h, desc, &one, t, x.data(), &zero, t, y.data(), true, ws.data()),
                miopenStatusSuccess);
      std::vector<double> scale;
      const auto want_y = ref::lrn_forward(rd, lens, as_double(x), &scale);
      EXPECT_LT(max_abs_diff(want_y, y), 1e-5);
      EXPECT_LT(max_abs_diff(scale, std::vector<float>(ws.begin(), ws.begin() + count)), 1e-5);
      ASSERT_EQ(miopenLRNForward(h, desc, &one, t, x.data(), &zero, t, y2.data(), false, nullptr),
                miopenStatusSuccess);
      EXPECT_EQ(y2, y);
      ASSERT_EQ(miopenLRNBackward(h, desc, &one, t, y.data(), t, dy.data(), t, x.data(), &zero, t,
                                  dx.data(), ws.data()),
                miopenStatusSuccess);
      const auto want_dx =
          ref::lrn_backward(rd, lens, as_double(x), as_double(y), as_double(dy),
                            as_double(std::vector<float>(ws.begin(), ws.begin() + count)));
      EXPECT_LT(max_abs_diff(want_dx, dx), 1e-5);
    }
}

// MIOpen's LRN neither reads nor applies alpha and beta: the output is overwritten with the
// plain result, null scaling factors included.
TEST(LrnApi, AlphaBetaAreIgnoredAsInMiopen) {
  std::mt19937 rng(fresh_seed());
  Handle h;
  Tensor t(miopenFloat, {1, 6, 4, 4});
  const size_t count = 96;
  Lrn desc(miopenLRNCrossChannel, 5, 1.0, 0.75, 1.0);
  const std::vector<float> x = random_floats(rng, count, -2.0f, 2.0f);
  std::vector<float> plain(count, NAN), blended(count, 7.0f), nulls(count, 7.0f);
  const float one = 1.0f, zero = 0.0f, half = 0.5f, two = 2.0f;
  ASSERT_EQ(miopenLRNForward(h, desc, &one, t, x.data(), &zero, t, plain.data(), false, nullptr),
            miopenStatusSuccess);
  ASSERT_EQ(miopenLRNForward(h, desc, &half, t, x.data(), &two, t, blended.data(), false, nullptr),
            miopenStatusSuccess);
  ASSERT_EQ(
      miopenLRNForward(h, desc, nullptr, t, x.data(), nullptr, t, nulls.data(), false, nullptr),
      miopenStatusSuccess);
  EXPECT_EQ(blended, plain);
  EXPECT_EQ(nulls, plain);
}

TEST(LrnApi, BadInputReturnsStatusWithReasonAndWritesNothing) {
  Handle h;
  Tensor t(miopenFloat, {2, 3, 4, 5}), other(miopenFloat, {2, 3, 4, 4}),
      half(miopenHalf, {2, 3, 4, 5}), bf(miopenBFloat16, {2, 3, 4, 5}),
      three(miopenFloat, {2, 3, 20}), unset;
  Lrn good(miopenLRNCrossChannel, 5, 1e-3, 0.75, 1.0), never_set,
      k0(miopenLRNWithinChannel, 3, 1, 1, 0.0);
  std::vector<float> x(120, 1.0f), y(120, 7.0f), dy(120, 1.0f), dx(120, 7.0f), ws(120, 1.0f);
  const float one = 1.0f, zero = 0.0f;
  const char* fwd = "miopenLRNForward";
  const char* bwd = "miopenLRNBackward";
  auto forward = [&](miopenLRNDescriptor_t d, miopenTensorDescriptor_t xd,
                     miopenTensorDescriptor_t yd, const void* xp, void* yp, bool keep, void* w) {
    return [=, &h, &one, &zero] {
      return miopenLRNForward(h, d, &one, xd, xp, &zero, yd, yp, keep, w);
    };
  };
  expect_failure(miopenStatusBadParm, fwd, "handle", [&] {
    return miopenLRNForward(nullptr, good, &one, t, x.data(), &zero, t, y.data(), false, nullptr);
  });
  expect_failure(miopenStatusBadParm, fwd, "lrnDesc is a null pointer",
                 forward(nullptr, t, t, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "lrnN is 0",
                 forward(never_set, t, t, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "non-zero bias/K",
                 forward(k0, t, t, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "yDesc has not been set",
                 forward(good, t, unset, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "yDesc is 2x3x4x4 but xDesc is 2x3x4x5",
                 forward(good, t, other, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "yDesc is FP16 but xDesc is FP32",
                 forward(good, t, half, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "4-D",
                 forward(good, three, three, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusNotImplemented, fwd, "float and half",
                 forward(good, bf, bf, x.data(), y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "x is a null pointer",
                 forward(good, t, t, nullptr, y.data(), false, nullptr));
  expect_failure(miopenStatusBadParm, fwd, "workSpace",
                 forward(good, t, t, x.data(), y.data(), true, nullptr));
  expect_failure(miopenStatusBadParm, bwd, "workSpace", [&] {
    return miopenLRNBackward(h, good, &one, t, y.data(), t, dy.data(), t, x.data(), &zero, t,
                             dx.data(), nullptr);
  });
  expect_failure(miopenStatusBadParm, bwd, "dy is a null pointer", [&] {
    return miopenLRNBackward(h, good, &one, t, y.data(), t, nullptr, t, x.data(), &zero, t,
                             dx.data(), ws.data());
  });
  expect_failure(miopenStatusBadParm, bwd, "dxDesc is 2x3x4x4", [&] {
    return miopenLRNBackward(h, good, &one, t, y.data(), t, dy.data(), t, x.data(), &zero, other,
                             dx.data(), ws.data());
  });
  expect_failure(miopenStatusNotImplemented, bwd, "float and half", [&] {
    return miopenLRNBackward(h, good, &one, bf, y.data(), bf, dy.data(), bf, x.data(), &zero, bf,
                             dx.data(), ws.data());
  });
  for (float v : y)
    EXPECT_EQ(v, 7.0f);
  for (float v : dx)
    EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace anydnn::test
