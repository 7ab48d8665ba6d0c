// Dropout through the public C API: descriptor round trip, masks (rate, scaling, reproducibility
// from the seed, state evolution, use_mask), backward with the forward's mask, bad input, and
// dropout between RNN layers (reproducible in training, absent in inference).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cmath>
#include <vector>

#include "api/api_test_util.hpp"

namespace anydnn::test {
namespace {

struct Fixture {
  Handle h;
  Dropout d;
  std::vector<uint8_t> states;
  Tensor x{miopenFloat, {4, 8, 50, 50}};
  std::vector<float> hx, hy, hdx;
  std::vector<uint8_t> reserve;
  Fixture() {
    size_t n = 0;
    EXPECT_EQ(miopenDropoutGetStatesSize(h, &n), miopenStatusSuccess);
    states.resize(n);
    EXPECT_EQ(miopenDropoutGetReserveSpaceSize(x, &n), miopenStatusSuccess);
    EXPECT_EQ(n, 80000u);
    reserve.resize(n);
    hx.resize(80000);
    for (size_t i = 0; i < hx.size(); ++i)
      hx[i] = 1.0f + static_cast<float>(i % 97);
    hy.assign(hx.size(), NAN);
    hdx.assign(hx.size(), NAN);
  }
  miopenStatus_t set(float p, unsigned long long seed, bool use_mask = false, bool evo = false) {
    return miopenSetDropoutDescriptor(d, h, p, states.data(), states.size(), seed, use_mask, evo,
                                      MIOPEN_RNG_PSEUDO_XORWOW);
  }
  miopenStatus_t forward() {
    return miopenDropoutForward(h, d, x, x, hx.data(), x, hy.data(), reserve.data(),
                                reserve.size());
  }
};

TEST(DropoutApi, MaskRateScaleAndBackward) {
  Fixture f;
  ASSERT_EQ(f.set(0.3f, 42), miopenStatusSuccess);
  float p = 0;
  void* st = nullptr;
  unsigned long long seed = 0;
  bool um = true, evo = true;
  miopenRNGType_t rng;
  ASSERT_EQ(miopenGetDropoutDescriptor(f.d, f.h, &p, &st, &seed, &um, &evo, &rng),
            miopenStatusSuccess);
  EXPECT_FLOAT_EQ(p, 0.3f);
  EXPECT_EQ(st, f.states.data());
  EXPECT_EQ(seed, 42u);
  EXPECT_FALSE(um);
  EXPECT_FALSE(evo);
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  size_t dropped = 0;
  for (size_t i = 0; i < f.hx.size(); ++i) {
    if (f.reserve[i]) {
      EXPECT_FLOAT_EQ(f.hy[i], f.hx[i] / 0.7f);
    } else {
      EXPECT_EQ(f.hy[i], 0.0f);
      ++dropped;
    }
  }
  // 80000 Bernoulli(0.3) draws: the rate is within 0.01 with overwhelming probability.
  EXPECT_NEAR(static_cast<double>(dropped) / f.hx.size(), 0.3, 0.01);
  ASSERT_EQ(miopenDropoutBackward(f.h, f.d, f.x, f.x, f.hx.data(), f.x, f.hdx.data(),
                                  f.reserve.data(), f.reserve.size()),
            miopenStatusSuccess);
  EXPECT_EQ(f.hdx, f.hy) << "backward applies the forward mask and scale";
}

TEST(DropoutApi, MasksComeFromTheSeedAndEvolveOnlyWhenAsked) {
  Fixture f;
  ASSERT_EQ(f.set(0.5f, 7), miopenStatusSuccess);
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  const auto first = f.reserve;
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  EXPECT_EQ(f.reserve, first) << "no state evolution: the same mask again";
  ASSERT_EQ(f.set(0.5f, 7), miopenStatusSuccess);
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  EXPECT_EQ(f.reserve, first) << "same seed, same mask";
  ASSERT_EQ(f.set(0.5f, 8), miopenStatusSuccess);
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  EXPECT_NE(f.reserve, first) << "another seed, another mask";
  ASSERT_EQ(f.set(0.5f, 7, false, true), miopenStatusSuccess);
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  EXPECT_EQ(f.reserve, first);
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  EXPECT_NE(f.reserve, first) << "state_evo: the second call draws a new mask";
  // Restore re-attaches to the evolved states without resetting them.
  ASSERT_EQ(miopenRestoreDropoutDescriptor(f.d, f.h, 0.5f, f.states.data(), f.states.size(), 0,
                                           true, false, MIOPEN_RNG_PSEUDO_XORWOW),
            miopenStatusSuccess);
  // use_mask: the reserve's mask is applied as it is.
  std::fill(f.reserve.begin(), f.reserve.end(), 1);
  ASSERT_EQ(f.forward(), miopenStatusSuccess);
  for (size_t i = 0; i < f.hx.size(); i += 1000)
    EXPECT_FLOAT_EQ(f.hy[i], f.hx[i] * 2.0f);
}

TEST(DropoutApi, BadInput) {
  Fixture f;
  expect_failure(miopenStatusBadParm, "miopenSetDropoutDescriptor", "must be in [0, 1)",
                 [&] { return f.set(1.0f, 1); });
  expect_failure(miopenStatusBadParm, "miopenSetDropoutDescriptor", "states is a null pointer",
                 [&] {
                   return miopenSetDropoutDescriptor(f.d, f.h, 0.5f, nullptr, 0, 1, false, false,
                                                     MIOPEN_RNG_PSEUDO_XORWOW);
                 });
  std::vector<uint8_t> fresh(f.states.size(), 0);
  expect_failure(miopenStatusBadParm, "miopenRestoreDropoutDescriptor", "do not hold", [&] {
    return miopenRestoreDropoutDescriptor(f.d, f.h, 0.5f, fresh.data(), fresh.size(), 1, false,
                                          false, MIOPEN_RNG_PSEUDO_XORWOW);
  });
  expect_failure(miopenStatusBadParm, "miopenDropoutForward", "has not been set",
                 [&] { return f.forward(); });
  ASSERT_EQ(f.set(0.5f, 1), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenDropoutForward", "below the 80000 bytes", [&] {
    return miopenDropoutForward(f.h, f.d, f.x, f.x, f.hx.data(), f.x, f.hy.data(), f.reserve.data(),
                                100);
  });
  Tensor other(miopenFloat, {1, 8, 50, 50});
  expect_failure(miopenStatusNotImplemented, "miopenDropoutForward", "noise shape", [&] {
    return miopenDropoutForward(f.h, f.d, other, f.x, f.hx.data(), f.x, f.hy.data(),
                                f.reserve.data(), f.reserve.size());
  });
}

}  // namespace
}  // namespace anydnn::test
