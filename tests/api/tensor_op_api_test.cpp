// miopenOpTensor, miopenSetTensor, miopenScaleTensor, miopenTransformTensor and
// miopenSetTensorCastType through the public C API: results on random data, MIOpen's scalar
// conventions, the int8 channel padding, bad input (status and a one-line reason in the log,
// nothing thrown), the LogCmdTensorOp line and the API trace.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "core/float_types.hpp"

namespace anydnn::test {
namespace {

struct Strided : Tensor {
  Strided(miopenDataType_t t, std::vector<int> lens, std::vector<int> strides) {
    EXPECT_EQ(
        miopenSetTensorDescriptor(d, t, static_cast<int>(lens.size()), lens.data(), strides.data()),
        miopenStatusSuccess);
  }
};

TEST(TensorOpApi, OpTensorBroadcastsBAndBlendsWithBeta) {
  Handle h;
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Tensor c(miopenFloat, {2, 3, 4, 5}), b(miopenFloat, {1, 3, 1, 5});
  auto ha = random_floats(rng, 120, -1, 1), hb = random_floats(rng, 15, -1, 1),
       hc = random_floats(rng, 120, -1, 1);
  const float a1 = 0.5f, a2 = -2.0f, beta = 0.25f;
  for (auto op : {miopenTensorOpAdd, miopenTensorOpMul, miopenTensorOpMin, miopenTensorOpMax}) {
    auto out = hc;
    ASSERT_EQ(miopenOpTensor(h, op, &a1, c, ha.data(), &a2, b, hb.data(), &beta, c, out.data()),
              miopenStatusSuccess);
    for (size_t i = 0; i < 120; ++i) {
      const float x = a1 * ha[i], y = a2 * hb[(i / 20) % 3 * 5 + i % 5];
      const float r = op == miopenTensorOpAdd   ? x + y
                      : op == miopenTensorOpMul ? x * y
                      : op == miopenTensorOpMin ? (x < y ? x : y)
                                                : (x > y ? x : y);
      EXPECT_NEAR(out[i], r + beta * hc[i], 1e-6) << "op " << op << " element " << i;
    }
  }
}

TEST(TensorOpApi, BetaZeroIgnoresNanInC) {
  Handle h;
  Tensor c(miopenFloat, {1, 2, 3, 3});
  std::vector<float> a(18, 1.0f), b(18, 2.0f), out(18, std::nanf(""));
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenOpTensor(h, miopenTensorOpAdd, &one, c, a.data(), &one, c, b.data(), &zero, c,
                           out.data()),
            miopenStatusSuccess);
  for (float v : out)
    EXPECT_EQ(v, 3.0f);
}

// Set and Scale read the value in the tensor's data type (MIOpen's visit_float).
TEST(TensorOpApi, SetAndScaleTakeTheValueInTheDataType) {
  Handle h;
  Strided y(miopenHalf, {2, 3}, {4, 1});  // a gap of one element per row
  std::vector<uint16_t> buf(8, 0x7e00);   // half NaN everywhere
  const uint16_t two = float_to_half(2.0f), quarter = float_to_half(0.25f);
  ASSERT_EQ(miopenSetTensor(h, y, buf.data(), &two), miopenStatusSuccess);
  ASSERT_EQ(miopenScaleTensor(h, y, buf.data(), &quarter), miopenStatusSuccess);
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(buf[i], i % 4 == 3 ? 0x7e00 : float_to_half(0.5f)) << i;  // gaps untouched
  Tensor yi(miopenInt32, {5});
  std::vector<int32_t> vi(5);
  const int32_t seven = 7, three = 3;
  ASSERT_EQ(miopenSetTensor(h, yi, vi.data(), &seven), miopenStatusSuccess);
  ASSERT_EQ(miopenScaleTensor(h, yi, vi.data(), &three), miopenStatusSuccess);
  for (int32_t v : vi)
    EXPECT_EQ(v, 21);
}

// An int32 result outside int32's range saturates, NaN-free, as the GPU's conversion does (a
// plain C++ cast would be undefined behaviour; fuzz_compute found it with ScaleTensor).
TEST(TensorOpApi, Int32ResultsSaturate) {
  Handle h;
  Tensor yi(miopenInt32, {4});
  std::vector<int32_t> vi = {1 << 30, -(1 << 30), 5, -5};
  const int32_t big = 1 << 30;
  ASSERT_EQ(miopenScaleTensor(h, yi, vi.data(), &big), miopenStatusSuccess);
  EXPECT_EQ(vi[0], INT32_MAX);
  EXPECT_EQ(vi[1], INT32_MIN);
  EXPECT_EQ(vi[2], INT32_MAX);
  EXPECT_EQ(vi[3], INT32_MIN);
}

TEST(TensorOpApi, TransformConvertsLayoutsAndBlends) {
  Handle h;
  const int lens[] = {2, 3, 4, 5};
  Tensor nchw, nhwc;
  ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(nchw, miopenFloat, miopenTensorNCHW, lens, 4),
            miopenStatusSuccess);
  ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(nhwc, miopenFloat, miopenTensorNHWC, lens, 4),
            miopenStatusSuccess);
  std::vector<float> x(120), y(120, 1.0f);
  for (size_t i = 0; i < 120; ++i)
    x[i] = static_cast<float>(i);
  const float alpha = 2.0f, beta = 0.5f;
  ASSERT_EQ(miopenTransformTensor(h, &alpha, nchw, x.data(), &beta, nhwc, y.data()),
            miopenStatusSuccess);
  for (size_t i = 0; i < 120; ++i) {
    const size_t c = i % 3, w = (i / 3) % 5, hh = (i / 15) % 4, n = i / 60;
    EXPECT_EQ(y[i], 2.0f * x[((n * 3 + c) * 4 + hh) * 5 + w] + 0.5f) << i;
  }
}

TEST(TensorOpApi, TransformPadsInt8ChannelsToAMultipleOfFour) {
  Handle h;
  Tensor x(miopenInt8, {2, 3, 2, 2}), y(miopenInt8, {2, 4, 2, 2});
  std::vector<int8_t> hx(24), hy(32, 99);
  for (size_t i = 0; i < 24; ++i)
    hx[i] = static_cast<int8_t>(i + 1);
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenTransformTensor(h, &one, x, hx.data(), &zero, y, hy.data()), miopenStatusSuccess);
  for (size_t n = 0; n < 2; ++n)
    for (size_t c = 0; c < 4; ++c)
      for (size_t s = 0; s < 4; ++s)
        EXPECT_EQ(hy[(n * 4 + c) * 4 + s], c < 3 ? hx[(n * 3 + c) * 4 + s] : 0);
  expect_failure(
      miopenStatusNotImplemented, "miopenTransformTensor", "not supported for int8",
      [&] { return miopenTransformTensor(h, &zero, x, hx.data(), &zero, y, hy.data()); });
  Tensor y8(miopenInt8, {2, 8, 2, 2});
  expect_failure(miopenStatusUnknownError, "miopenTransformTensor", "Invalid y channel size", [&] {
    return miopenTransformTensor(h, &one, x, hx.data(), &zero, y8, hy.data());
  });
}

TEST(TensorOpApi, BadInputGetsMiopensStatusAndAReason) {
  Handle h;
  Tensor c(miopenFloat, {2, 3, 4, 5}), c5(miopenFloat, {2, 3, 4, 6}), bh(miopenHalf, {2, 3, 4, 5}),
      b3(miopenFloat, {3, 4, 5}), b2(miopenFloat, {1, 2, 1, 1}), unset, bf(miopenBFloat16, {4}),
      i8(miopenInt8, {2, 3, 4, 5});
  std::vector<float> buf(240);
  void* p = buf.data();
  const float one = 1.0f, zero = 0.0f;
  const char* op = "miopenOpTensor";
  const auto add = [&](miopenTensorDescriptor_t a, miopenTensorDescriptor_t b,
                       miopenTensorDescriptor_t cc) {
    return [=, &one, &zero, &h] {
      return miopenOpTensor(h, miopenTensorOpAdd, &one, a, p, &one, b, p, &zero, cc, p);
    };
  };
  expect_failure(miopenStatusUnknownError, op, "A and C Tensors do not match", add(c5, c, c));
  expect_failure(miopenStatusUnknownError, op, "Datatypes for B and C", add(c, bh, c));
  expect_failure(miopenStatusUnknownError, op, "Number of dims in B and C", add(c, b3, c));
  expect_failure(miopenStatusUnknownError, op, "BTensor dim != 1", add(c, b2, c));
  expect_failure(miopenStatusBadParm, op, "has not been set", add(c, unset, c));
  expect_failure(miopenStatusNotImplemented, op, "INT8", add(i8, i8, i8));
  expect_failure(miopenStatusBadParm, op, "not a miopenTensorOp_t", [&] {
    return miopenOpTensor(h, static_cast<miopenTensorOp_t>(9), &one, c, p, &one, c, p, &zero, c, p);
  });
  expect_failure(miopenStatusBadParm, op, "B is a null pointer", [&] {
    return miopenOpTensor(h, miopenTensorOpAdd, &one, c, p, &one, c, nullptr, &zero, c, p);
  });
  expect_failure(miopenStatusBadParm, op, "beta is a null pointer", [&] {
    return miopenOpTensor(h, miopenTensorOpAdd, &one, c, p, &one, c, p, nullptr, c, p);
  });
  expect_failure(miopenStatusBadParm, "miopenSetTensor", "y is a null pointer",
                 [&] { return miopenSetTensor(h, c, nullptr, &one); });
  expect_failure(miopenStatusBadParm, "miopenSetTensor", "fill value",
                 [&] { return miopenSetTensor(h, c, p, nullptr); });
  expect_failure(miopenStatusBadParm, "miopenScaleTensor", "ScaleTensor: unsupported data type",
                 [&] { return miopenScaleTensor(h, bf, p, &one); });
  expect_failure(miopenStatusUnknownError, "miopenTransformTensor", "different data types",
                 [&] { return miopenTransformTensor(h, &one, c, p, &zero, bh, p); });
  expect_failure(miopenStatusUnknownError, "miopenTransformTensor", "spatial sizes do not match",
                 [&] { return miopenTransformTensor(h, &one, c, p, &zero, c5, p); });
  expect_failure(miopenStatusBadParm, "miopenTransformTensor", "alpha is a null pointer",
                 [&] { return miopenTransformTensor(h, nullptr, c, p, &zero, c, p); });
  expect_failure(miopenStatusBadParm, "miopenSetTensorCastType", "not a data type",
                 [&] { return miopenSetTensorCastType(c, static_cast<miopenDataType_t>(4)); });
}

// A cast type is stored; tensor ops ignore it and a convolution refuses it (no fp8 rounding).
TEST(TensorOpApi, CastTypeIsStoredAndConvolutionRefusesIt) {
  Handle h;
  Tensor x(miopenFloat, {1, 1, 4, 4}), w(miopenFloat, {1, 1, 3, 3}), y(miopenFloat, {1, 1, 2, 2});
  ASSERT_EQ(miopenSetTensorCastType(w, miopenFloat8), miopenStatusSuccess);
  Conv conv;
  std::vector<float> hx(16, 1.0f), hw(9, 1.0f), hy(4);
  const float one = 1.0f, zero = 0.0f;
  ASSERT_EQ(miopenSetTensor(h, x, hx.data(), &one), miopenStatusSuccess);
  expect_failure(miopenStatusNotImplemented, "miopenConvolutionForward", "cast type", [&] {
    return miopenConvolutionForward(h, &one, x, hx.data(), w, hw.data(), conv,
                                    miopenConvolutionFwdAlgoGEMM, &zero, y, hy.data(), nullptr, 0);
  });
}

// The LogCmdTensorOp line and the API trace are checked through the driver (tests/CMakeLists.txt:
// driver.logged_tensorop_replays, driver.tensorop_api_trace): the environment is read once per
// process.

}  // namespace
}  // namespace anydnn::test
