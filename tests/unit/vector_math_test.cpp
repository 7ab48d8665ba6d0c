// The vectorisable exp / tanh / logistic of core/vector_math.hpp against double precision, over
// a dense sweep of their whole range plus the edges: overflow, underflow, NaN, signed zero.
#include "core/vector_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace anydnn {
namespace {

// Relative error against `want`, in units of float's epsilon.
double ulps(float got, double want) {
  return std::fabs(got - want) / (std::fabs(want) * std::numeric_limits<float>::epsilon());
}

TEST(VectorMath, ExpWithinTwoUlpOverTheNormalRange) {
  double worst = 0;
  float at = 0;
  for (float x = -87.3f; x <= 88.7f; x += 1.0f / 1024) {
    const double e = ulps(vmath::exp(x), std::exp(static_cast<double>(x)));
    if (e > worst) worst = e, at = x;
  }
  EXPECT_LE(worst, 2.0) << "at x = " << at;
  EXPECT_EQ(vmath::exp(0.0f), 1.0f);
  EXPECT_EQ(vmath::exp(-0.0f), 1.0f);
}

TEST(VectorMath, ExpEdges) {
  EXPECT_EQ(vmath::exp(-88.0f), 0.0f);  // below the normal range: 0, never a denormal
  EXPECT_EQ(vmath::exp(-1e30f), 0.0f);
  EXPECT_EQ(vmath::exp(-INFINITY), 0.0f);
  EXPECT_EQ(vmath::exp(88.8f), INFINITY);
  EXPECT_EQ(vmath::exp(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(vmath::exp(NAN)));
  // The top of the range, where 2^n needs two factors: finite and accurate.
  EXPECT_LE(ulps(vmath::exp(88.72f), std::exp(static_cast<double>(88.72f))), 2.0);
}

TEST(VectorMath, TanhWithinFourUlpEverywhere) {
  double worst = 0;
  float at = 0;
  for (float x = -12.0f; x <= 12.0f; x += 1.0f / 4096) {
    const double e = ulps(vmath::tanh(x), std::tanh(static_cast<double>(x)));
    if (e > worst) worst = e, at = x;
  }
  EXPECT_LE(worst, 4.0) << "at x = " << at;
  EXPECT_LE(ulps(vmath::tanh(1e-20f), 1e-20), 1.0);  // no cancellation near 0
  EXPECT_EQ(vmath::tanh(50.0f), 1.0f);
  EXPECT_EQ(vmath::tanh(-INFINITY), -1.0f);
  EXPECT_TRUE(std::signbit(vmath::tanh(-0.0f)));
  EXPECT_TRUE(std::isnan(vmath::tanh(NAN)));
}

TEST(VectorMath, LogisticWithinFourUlp) {
  double worst = 0;
  float at = 0;
  for (float x = -80.0f; x <= 30.0f; x += 1.0f / 1024) {
    const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
    const double e = ulps(vmath::logistic(x), want);
    if (e > worst) worst = e, at = x;
  }
  EXPECT_LE(worst, 4.0) << "at x = " << at;
  EXPECT_EQ(vmath::logistic(-100.0f), 0.0f);
  EXPECT_EQ(vmath::logistic(100.0f), 1.0f);
  EXPECT_TRUE(std::isnan(vmath::logistic(NAN)));
}

}  // namespace
}  // namespace anydnn
