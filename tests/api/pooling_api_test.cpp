// The pooling C API: descriptor round trips, MIOpen's defaults, output lengths, workspace sizes,
// forward with indices then backward through the public header, and bad input statuses.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <vector>

namespace {

TEST(PoolingApi, DescriptorRoundTripsAndDefaults) {
  miopenPoolingDescriptor_t pd = nullptr;
  ASSERT_EQ(miopenCreatePoolingDescriptor(&pd), miopenStatusSuccess);
  ASSERT_EQ(miopenSet2dPoolingDescriptor(pd, miopenPoolingAverage, 3, 2, 1, 0, 2, 1),
            miopenStatusSuccess);
  miopenPoolingMode_t m;
  int wh, ww, ph, pw, sh, sw;
  ASSERT_EQ(miopenGet2dPoolingDescriptor(pd, &m, &wh, &ww, &ph, &pw, &sh, &sw),
            miopenStatusSuccess);
  EXPECT_EQ(m, miopenPoolingAverage);
  EXPECT_EQ(std::vector<int>({wh, ww, ph, pw, sh, sw}), std::vector<int>({3, 2, 1, 0, 2, 1}));
  miopenIndexType_t it;
  miopenPoolingWorkspaceIndexMode_t im;
  ASSERT_EQ(miopenGetPoolingIndexType(pd, &it), miopenStatusSuccess);
  ASSERT_EQ(miopenGetPoolingWorkSpaceIndexMode(pd, &im), miopenStatusSuccess);
  EXPECT_EQ(it, miopenIndexUint8);
  EXPECT_EQ(im, miopenPoolingWorkspaceIndexMask);
  const int k[3] = {2, 2, 2}, p[3] = {0, 0, 0}, s[3] = {2, 2, 2};
  ASSERT_EQ(miopenSetNdPoolingDescriptor(pd, miopenPoolingMax, 3, k, p, s), miopenStatusSuccess);
  ASSERT_EQ(miopenGetPoolingWorkSpaceIndexMode(pd, &im), miopenStatusSuccess);
  EXPECT_EQ(im, miopenPoolingWorkspaceIndexImage);  // MIOpen: 3-D descriptors use image indices
  int nb = 0, kk[3] = {};
  ASSERT_EQ(miopenGetNdPoolingDescriptor(pd, 3, &m, &nb, kk, nullptr, nullptr),
            miopenStatusSuccess);
  EXPECT_EQ(nb, 3);
  EXPECT_EQ(kk[2], 2);
  // Bad input: BadParm, nothing thrown.
  EXPECT_EQ(miopenSet2dPoolingDescriptor(pd, miopenPoolingMax, 0, 2, 0, 0, 1, 1),
            miopenStatusBadParm);
  EXPECT_EQ(miopenSet2dPoolingDescriptor(pd, static_cast<miopenPoolingMode_t>(7), 2, 2, 0, 0, 1, 1),
            miopenStatusBadParm);
  EXPECT_EQ(miopenSetPoolingIndexType(pd, static_cast<miopenIndexType_t>(9)), miopenStatusBadParm);
  EXPECT_EQ(miopenGetPoolingIndexType(pd, nullptr), miopenStatusBadParm);
  EXPECT_EQ(miopenDestroyPoolingDescriptor(pd), miopenStatusSuccess);
}

TEST(PoolingApi, ForwardWithIndicesThenBackward) {
  miopenHandle_t h;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenPoolingDescriptor_t pd;
  miopenCreatePoolingDescriptor(&pd);
  miopenSet2dPoolingDescriptor(pd, miopenPoolingMax, 2, 2, 0, 0, 2, 2);
  miopenTensorDescriptor_t xd, yd;
  miopenCreateTensorDescriptor(&xd);
  miopenCreateTensorDescriptor(&yd);
  miopenSet4dTensorDescriptor(xd, miopenFloat, 1, 1, 4, 4);
  int n, c, hh, w;
  ASSERT_EQ(miopenGetPoolingForwardOutputDim(pd, xd, &n, &c, &hh, &w), miopenStatusSuccess);
  EXPECT_EQ(std::vector<int>({n, c, hh, w}), std::vector<int>({1, 1, 2, 2}));
  miopenSet4dTensorDescriptor(yd, miopenFloat, n, c, hh, w);
  size_t ws1 = 0, ws2 = 0;
  ASSERT_EQ(miopenPoolingGetWorkSpaceSize(yd, &ws1), miopenStatusSuccess);
  ASSERT_EQ(miopenPoolingGetWorkSpaceSizeV2(pd, yd, &ws2), miopenStatusSuccess);
  EXPECT_EQ(ws1, 4u);
  EXPECT_EQ(ws2, 4u);
  std::vector<float> x(16), y(4, -1), dy = {1, 2, 3, 4}, dx(16, -1);
  for (int i = 0; i < 16; ++i)
    x[i] = static_cast<float>((i * 7) % 16);
  std::vector<unsigned char> ws(ws2);
  const float one = 1, zero = 0;
  ASSERT_EQ(
      miopenPoolingForward(h, pd, &one, xd, x.data(), &zero, yd, y.data(), true, ws.data(), 0),
      miopenStatusSuccess);
  EXPECT_EQ(y, std::vector<float>({12, 14, 15, 13}));
  EXPECT_EQ(miopenPoolingForward(h, pd, &one, xd, x.data(), &zero, yd, y.data(), true, nullptr, 0),
            miopenStatusBadParm);
  ASSERT_EQ(miopenPoolingBackward(h, pd, &one, yd, y.data(), yd, dy.data(), xd, x.data(), &zero, xd,
                                  dx.data(), ws.data()),
            miopenStatusSuccess);
  float sum = 0;
  for (float v : dx)
    sum += v;
  EXPECT_EQ(sum, 10.0f);
  EXPECT_EQ(dx[2], 2.0f);  // x[2] = 14 is the second window's max, dy[1] = 2
  EXPECT_EQ(miopenPoolingForward(h, pd, &one, yd, y.data(), &zero, xd, x.data(), false, nullptr, 0),
            miopenStatusSuccess);  // windows larger than the input are clipped, as MIOpen's
  miopenDestroyTensorDescriptor(xd);
  miopenDestroyTensorDescriptor(yd);
  miopenDestroyPoolingDescriptor(pd);
  miopenDestroy(h);
}

}  // namespace
