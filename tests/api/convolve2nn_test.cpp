// The ArrayFire-style convolve2NN / convolve2GradientNN API (include/anydnn/convolve2nn.h/.hpp):
// ArrayFire's test semantics (its ConvolveStrided shapes with all-ones incoming gradients, the
// 2817 zero-padding case, 3x5 / 5x3 filters, 8x10x3x2 with 3x3x3x4), every gradient type
// against a direct double true-convolution reference on random data, the filter flip made
// explicit, fp16, and bad input rejected with ArrayFire's error codes and a reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "anydnn/convolve2nn.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

using af::array;
using af::convGradientType;
using af::dim4;

struct Geo {
  int s[2], p[2], d[2];
};

long long out_size(long long in, long long f, int s, int p, int d) {
  return 1 + (in + 2 * p - ((f - 1) * d + 1)) / s;
}

// Direct true convolution (the filter flipped along W and H) and its three gradients, in double,
// written as the scatter of one loop nest so that each is independent of MIOpen's formulas.
struct Reference {
  dim4 xs, fs, ys;
  std::vector<double> y, dx, df, db;
  Reference(const array& x, const array& f, const std::vector<double>& dy, Geo g)
      : xs(x.dims()), fs(f.dims()) {
    ys = dim4(out_size(xs[0], fs[0], g.s[0], g.p[0], g.d[0]),
              out_size(xs[1], fs[1], g.s[1], g.p[1], g.d[1]), fs[3], xs[3]);
    y.assign(ys.elements(), 0.0);
    dx.assign(xs.elements(), 0.0);
    df.assign(fs.elements(), 0.0);
    db.assign(fs[3], 0.0);
    auto xi = [&](long long i, long long j, long long c, long long n) {
      return ((n * xs[2] + c) * xs[1] + j) * xs[0] + i;
    };
    auto fi = [&](long long a, long long b, long long c, long long k) {
      return ((k * fs[2] + c) * fs[1] + b) * fs[0] + a;
    };
    for (long long n = 0; n < ys[3]; ++n)
      for (long long k = 0; k < ys[2]; ++k)
        for (long long oy = 0; oy < ys[1]; ++oy)
          for (long long ox = 0; ox < ys[0]; ++ox) {
            const long long yi = ((n * ys[2] + k) * ys[1] + oy) * ys[0] + ox;
            db[k] += dy[yi];
            for (long long c = 0; c < xs[2]; ++c)
              for (long long b = 0; b < fs[1]; ++b)
                for (long long a = 0; a < fs[0]; ++a) {
                  const long long ix = ox * g.s[0] - g.p[0] + a * g.d[0];
                  const long long iy = oy * g.s[1] - g.p[1] + b * g.d[1];
                  if (ix < 0 || iy < 0 || ix >= xs[0] || iy >= xs[1]) continue;
                  const long long tap = fi(fs[0] - 1 - a, fs[1] - 1 - b, c, k);  // the flip
                  y[yi] += x.get(xi(ix, iy, c, n)) * double(f.get(tap));
                  dx[xi(ix, iy, c, n)] += dy[yi] * f.get(tap);
                  df[tap] += dy[yi] * x.get(xi(ix, iy, c, n));
                }
          }
  }
};

// Largest error relative to the largest reference magnitude.
double rel_err(const array& got, const std::vector<double>& want) {
  EXPECT_EQ(got.elements(), want.size());
  double err = 0, mag = 1e-30;
  for (size_t i = 0; i < want.size() && i < got.elements(); ++i) {
    err = std::max(err, std::fabs(got.get(i) - want[i]));
    mag = std::max(mag, std::fabs(want[i]));
    if (std::isnan(got.get(i))) return INFINITY;
  }
  return err / mag;
}

array random_array(dim4 d, std::mt19937& rng, miopenDataType_t t = miopenFloat) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<float> v(d.elements());
  for (float& e : v)
    e = n(rng);
  return array(d, v.data(), t);
}

struct Case {
  const char* name;
  dim4 x, f;
  Geo g;
};

// ArrayFire's ConvolveStrided golden-file shapes (sig<W><H><C><N>_filt<fW><fH><C><K>_s_p_d).
const Case kCases[] = {
    {"sig10x10_f3x3_s1_p1", {10, 10, 1, 1}, {3, 3, 1, 1}, {{1, 1}, {1, 1}, {1, 1}}},
    {"sig10x10_f3x3_s3", {10, 10, 1, 1}, {3, 3, 1, 1}, {{3, 3}, {0, 0}, {1, 1}}},
    {"sig10x10_f3x3_d2", {10, 10, 1, 1}, {3, 3, 1, 1}, {{1, 1}, {0, 0}, {2, 2}}},
    {"sig10x10_f3x3_d3_p2", {10, 10, 1, 1}, {3, 3, 1, 1}, {{1, 1}, {2, 2}, {3, 3}}},
    {"sig10x10_f5x5_s5", {10, 10, 1, 1}, {5, 5, 1, 1}, {{5, 5}, {0, 0}, {1, 1}}},
    {"sig14x14_f7x7_s7", {14, 14, 1, 1}, {7, 7, 1, 1}, {{7, 7}, {0, 0}, {1, 1}}},
    {"sig10x10_f3x5", {10, 10, 1, 1}, {3, 5, 1, 1}, {{1, 1}, {1, 2}, {1, 1}}},
    {"sig10x10_f5x3", {10, 10, 1, 1}, {5, 3, 1, 1}, {{1, 1}, {2, 1}, {1, 1}}},
    {"sig10x10_f3x5_s31_d21", {10, 10, 1, 1}, {3, 5, 1, 1}, {{3, 1}, {0, 0}, {2, 1}}},
    {"sig8x10x3x2_f3x3x3x4", {8, 10, 3, 2}, {3, 3, 3, 4}, {{1, 1}, {1, 1}, {1, 1}}},
    {"sig9x7x3x2_f3x3x3x4_s2_p1_d2", {9, 7, 3, 2}, {3, 3, 3, 4}, {{2, 2}, {1, 1}, {2, 2}}},
};

class Convolve2NN : public ::testing::TestWithParam<Case> {};

TEST_P(Convolve2NN, EveryGradientMatchesTheTrueConvolutionReference) {
  const Case& c = GetParam();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  const array x = random_array(c.x, rng), f = random_array(c.f, rng);
  const dim4 s(c.g.s[0], c.g.s[1]), p(c.g.p[0], c.g.p[1]), d(c.g.d[0], c.g.d[1]);
  const array y = af::convolve2NN(x, f, s, p, d);
  for (bool ones : {true, false}) {
    SCOPED_TRACE(ones ? "all-ones incoming gradient" : "random incoming gradient");
    const array dy = ones ? array::constant(1.0f, y.dims()) : random_array(y.dims(), rng);
    const std::vector<float> dyv = dy.host();
    const Reference r(x, f, std::vector<double>(dyv.begin(), dyv.end()), c.g);
    ASSERT_TRUE(y.dims() == r.ys);
    EXPECT_LT(rel_err(y, r.y), 1e-5) << "forward";
    const array dx = af::convolve2GradientNN(dy, x, f, y, s, p, d, convGradientType::Data);
    EXPECT_TRUE(dx.dims() == x.dims());
    EXPECT_LT(rel_err(dx, r.dx), 1e-5) << "data gradient";
    const array dflt = af::convolve2GradientNN(dy, x, f, y, s, p, d, convGradientType::Default);
    EXPECT_EQ(dflt.host(), dx.host()) << "DEFAULT is the data gradient";
    const array df = af::convolve2GradientNN(dy, x, f, y, s, p, d, convGradientType::Filter);
    EXPECT_TRUE(df.dims() == f.dims());
    EXPECT_LT(rel_err(df, r.df), 1e-5) << "filter gradient";
    const array db = af::convolve2GradientNN(dy, x, f, y, s, p, d, convGradientType::Bias);
    EXPECT_TRUE(db.dims() == dim4(1, 1, c.f[3], 1));
    EXPECT_LT(rel_err(db, r.db), 1e-6) << "bias gradient";
  }
}

INSTANTIATE_TEST_SUITE_P(ArrayFireShapes, Convolve2NN, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// ArrayFire's identity: with an all-ones incoming gradient, stride 1 and "same" padding, every
// interior data-gradient value is the sum of the filter's taps (over K for its channel).
TEST(Convolve2NNSemantics, AllOnesGradientInteriorIsTheSumOfTaps) {
  std::mt19937 rng(fresh_seed());
  const array x = random_array({12, 11, 2, 1}, rng), f = random_array({3, 5, 2, 3}, rng);
  const dim4 s(1, 1), p(1, 2), d(1, 1);
  const array y = af::convolve2NN(x, f, s, p, d);
  const array dx = af::convolve2GradientNN(array::constant(1.0f, y.dims()), x, f, y, s, p, d,
                                           convGradientType::Data);
  for (int c = 0; c < 2; ++c) {
    double taps = 0;
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 5; ++b)
        for (int a = 0; a < 3; ++a)
          taps += f(a, b, c, k);
    for (int j = 2; j < 11 - 2; ++j)
      for (int i = 1; i < 12 - 1; ++i)
        EXPECT_NEAR(dx(i, j, c, 0), taps, 1e-4 * (1 + std::fabs(taps))) << i << "," << j;
  }
}

// ArrayFire's ZeroPadding_Issue2817: 5x5 ones with a 3x3 box of 1/9 and no padding give a 3x3
// of ones; the filter gradient for an incoming 1/9 equals the forward output.
TEST(Convolve2NNSemantics, ZeroPaddingIssue2817) {
  const array x = array::constant(1.0f, {5, 5, 1, 1});
  const array f = array::constant(1.0f / 9, {3, 3, 1, 1});
  const array y = af::convolve2NN(x, f, {1, 1}, {0, 0}, {1, 1});
  ASSERT_TRUE(y.dims() == dim4(3, 3, 1, 1));
  for (float v : y.host())
    EXPECT_NEAR(v, 1.0f, 1e-6);
  const array df = af::convolve2GradientNN(array::constant(1.0f / 9, y.dims()), x, f, y, {1, 1},
                                           {0, 0}, {1, 1}, convGradientType::Filter);
  ASSERT_TRUE(df.dims() == f.dims());
  for (size_t i = 0; i < df.elements(); ++i)
    EXPECT_NEAR(df.get(i), y.get(i), 1e-6);
}

// True convolution, not correlation: a filter whose only nonzero tap is its first element
// (a = 0, b = 0) picks the signal at (ox + 2 - 1, oy + 2 - 1) with padding 1.
TEST(Convolve2NNSemantics, FilterIsFlipped) {
  std::vector<float> xv(6 * 5);
  for (size_t i = 0; i < xv.size(); ++i)
    xv[i] = static_cast<float>(i + 1);
  const array x({6, 5, 1, 1}, xv.data());
  array f({3, 3, 1, 1});
  f.set(0, 1.0f);
  const array y = af::convolve2NN(x, f, {1, 1}, {1, 1}, {1, 1});
  for (int oy = 0; oy < 5; ++oy)
    for (int ox = 0; ox < 6; ++ox) {
      const bool in = ox + 1 < 6 && oy + 1 < 5;
      // (near: the chosen solver may be Winograd, exact only to rounding)
      EXPECT_NEAR(y(ox, oy), in ? x(ox + 1, oy + 1) : 0.0f, 1e-4) << ox << "," << oy;
    }
}

TEST(Convolve2NNSemantics, HalfPrecisionWithinArrayFiresTolerance) {
  std::mt19937 rng(fresh_seed());
  const array x = random_array({8, 10, 3, 2}, rng, miopenHalf);
  const array f = random_array({3, 3, 3, 4}, rng, miopenHalf);
  const Geo g{{1, 1}, {1, 1}, {1, 1}};
  const array y = af::convolve2NN(x, f, {1, 1}, {1, 1}, {1, 1});
  EXPECT_EQ(y.type(), miopenHalf);
  const array ones = array::constant(1.0f, y.dims(), miopenHalf);
  const Reference r(x, f, std::vector<double>(y.elements(), 1.0), g);
  EXPECT_LT(rel_err(y, r.y), 7e-3);
  EXPECT_LT(rel_err(af::convolve2GradientNN(ones, x, f, y, {1, 1}, {1, 1}, {1, 1},
                                            convGradientType::Data),
                    r.dx),
            7e-3);
  EXPECT_LT(rel_err(af::convolve2GradientNN(ones, x, f, y, {1, 1}, {1, 1}, {1, 1},
                                            convGradientType::Filter),
                    r.df),
            7e-3);
}

// Bad input: ArrayFire's error code, a reason naming the problem, the output untouched.
TEST(Convolve2NNBadInput, RejectedWithCodeAndReason) {
  auto expect_throw = [](anydnn_af_err code, const std::string& reason, auto&& call) {
    try {
      call();
      ADD_FAILURE() << "no exception; expected " << reason;
    } catch (const af::exception& e) {
      EXPECT_EQ(e.err(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  const array x = array::constant(1.0f, {8, 8, 3, 2}), f = array::constant(1.0f, {3, 3, 3, 4});
  const array f2 = array::constant(1.0f, {3, 3, 2, 4});
  expect_throw(ANYDNN_AF_ERR_SIZE, "has 3 channels (dim 2) but filter", [&] {
    af::convolve2NN(x, f2, {1, 1}, {0, 0}, {1, 1});
  });
  expect_throw(ANYDNN_AF_ERR_ARG, "stride[1] = 0 must be >= 1", [&] {
    af::convolve2NN(x, f, {1, 0}, {0, 0}, {1, 1});
  });
  expect_throw(ANYDNN_AF_ERR_ARG, "padding[0] = -1 must be >= 0", [&] {
    af::convolve2NN(x, f, {1, 1}, {-1, 0}, {1, 1});
  });
  expect_throw(ANYDNN_AF_ERR_SIZE, "is larger than the padded signal", [&] {
    af::convolve2NN(x, f, {1, 1}, {0, 0}, {5, 5});
  });
  const array y = af::convolve2NN(x, f, {1, 1}, {0, 0}, {1, 1});  // 6x6x4x2
  const array wrong = array::constant(1.0f, {6, 6, 4, 1});
  expect_throw(ANYDNN_AF_ERR_SIZE, "must have the same dims", [&] {
    af::convolve2GradientNN(y, x, f, wrong, {1, 1}, {0, 0}, {1, 1}, convGradientType::Data);
  });
  expect_throw(ANYDNN_AF_ERR_SIZE, "is not the forward output's dims", [&] {
    af::convolve2GradientNN(wrong, x, f, wrong, {1, 1}, {0, 0}, {1, 1}, convGradientType::Data);
  });
  expect_throw(ANYDNN_AF_ERR_ARG, "grad_type 7", [&] {
    af::convolve2GradientNN(y, x, f, y, {1, 1}, {0, 0}, {1, 1}, static_cast<convGradientType>(7));
  });
  expect_throw(ANYDNN_AF_ERR_TYPE, "types differ", [&] {
    af::convolve2NN(x, array::constant(1.0f, {3, 3, 3, 4}, miopenHalf), {1, 1}, {0, 0}, {1, 1});
  });

  // The C functions: ArrayFire's dims-count rules, null pointers, type, capacity.
  anydnn_dim_t od[4] = {-1, -1, -1, -1};
  const anydnn_dim_t one[2] = {1, 1}, pad[2] = {0, 0};
  std::vector<float> out(6 * 6 * 4 * 2, -7.0f);
  auto call = [&](miopenDataType_t t, anydnn_af_conv_params prm, size_t cap, anydnn_af_view sv) {
    return anydnn_convolve2_nn(nullptr, t, out.data(), od, cap, sv, f.view(), prm);
  };
  const anydnn_af_conv_params good{2, one, 2, pad, 2, one};
  char msg[256];
  EXPECT_EQ(call(miopenInt8, good, out.size(), x.view()), ANYDNN_AF_ERR_TYPE);
  anydnn_af_get_last_error(msg, sizeof msg);
  EXPECT_NE(std::string(msg).find("miopenFloat or miopenHalf"), std::string::npos) << msg;
  EXPECT_EQ(call(miopenFloat, {3, one, 2, pad, 2, one}, out.size(), x.view()), ANYDNN_AF_ERR_ARG);
  EXPECT_EQ(call(miopenFloat, {0, one, 2, pad, 2, one}, out.size(), x.view()), ANYDNN_AF_ERR_ARG);
  EXPECT_EQ(call(miopenFloat, {2, nullptr, 2, pad, 2, one}, out.size(), x.view()),
            ANYDNN_AF_ERR_ARG);
  anydnn_af_view null_x = x.view();
  null_x.data = nullptr;
  EXPECT_EQ(call(miopenFloat, good, out.size(), null_x), ANYDNN_AF_ERR_ARG);
  anydnn_af_view zero_dim = x.view();
  zero_dim.dims[3] = 0;
  EXPECT_EQ(call(miopenFloat, good, out.size(), zero_dim), ANYDNN_AF_ERR_SIZE);
  EXPECT_EQ(call(miopenFloat, good, out.size() - 1, x.view()), ANYDNN_AF_ERR_SIZE);
  anydnn_af_get_last_error(msg, sizeof msg);
  EXPECT_NE(std::string(msg).find("out_capacity"), std::string::npos) << msg;
  for (float v : out)
    ASSERT_EQ(v, -7.0f) << "a failed call wrote its output";
  // Padding given for the width only: the height's padding is 0 (documented: not ArrayFire's
  // fill-with-1 of dim4(n, ptr)); a shape query with out == NULL.
  const anydnn_dim_t w_pad[1] = {1};
  ASSERT_EQ(anydnn_convolve2_nn(nullptr, miopenFloat, nullptr, od, 0, x.view(), f.view(),
                                {1, one, 1, w_pad, 1, one}),
            ANYDNN_AF_SUCCESS);
  EXPECT_EQ(std::vector<anydnn_dim_t>(od, od + 4), (std::vector<anydnn_dim_t>{8, 6, 4, 2}));
  ASSERT_EQ(call(miopenFloat, good, out.size(), x.view()), ANYDNN_AF_SUCCESS);
  EXPECT_EQ(out[0], 27.0f) << "3x3x3 ones";
}

}  // namespace
}  // namespace anydnn::test
