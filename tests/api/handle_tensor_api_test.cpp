// Public C API: handles, errors, version, tensor descriptors.
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>
#include <miopen/version.h>

#include <string>
#include <thread>

#include "api_test_util.hpp"

namespace anydnn::test {
namespace {

TEST(HandleApi, CreateStreamProfilingDestroy) {
  miopenHandle_t h = nullptr;
  ASSERT_EQ(miopenCreate(&h), miopenStatusSuccess);
  miopenAcceleratorQueue_t s = reinterpret_cast<miopenAcceleratorQueue_t>(0x1);
  EXPECT_EQ(miopenGetStream(h, &s), miopenStatusSuccess);
  EXPECT_EQ(s, nullptr);
  // The CPU backend keeps whatever stream value it is given (a cudaStream_t in a CUDA build).
  int dummy = 0;
  const auto fake = reinterpret_cast<miopenAcceleratorQueue_t>(&dummy);
  EXPECT_EQ(miopenSetStream(h, fake), miopenStatusSuccess);
  EXPECT_EQ(miopenGetStream(h, &s), miopenStatusSuccess);
  EXPECT_EQ(s, fake);
  float t = -1.0f;
  EXPECT_EQ(miopenGetKernelTime(h, &t), miopenStatusSuccess);
  EXPECT_EQ(t, 0.0f);
  EXPECT_EQ(miopenEnableProfiling(h, true), miopenStatusSuccess);
  EXPECT_EQ(miopenDestroy(h), miopenStatusSuccess);

  miopenHandle_t h2 = nullptr;
  EXPECT_EQ(miopenCreateWithStream(&h2, nullptr), miopenStatusSuccess);
  EXPECT_EQ(miopenDestroy(h2), miopenStatusSuccess);
}

TEST(HandleApi, BadArguments) {
  expect_failure(miopenStatusBadParm, "miopenCreate", "handle is a null pointer",
                 [] { return miopenCreate(nullptr); });
  expect_failure(miopenStatusBadParm, "miopenDestroy", "null pointer",
                 [] { return miopenDestroy(nullptr); });
  Handle h;
  expect_failure(miopenStatusBadParm, "miopenGetKernelTime", "time is a null pointer",
                 [&] { return miopenGetKernelTime(h, nullptr); });
  // A tensor descriptor passed where a handle is expected is recognised and refused.
  Tensor t;
  expect_failure(miopenStatusBadParm, "miopenGetKernelTime", "does not point to a live object",
                 [&] {
                   float f;
                   return miopenGetKernelTime(reinterpret_cast<miopenHandle_t>(t.d), &f);
                 });
}

// anydnnCreateWithBackend names the backend whatever MIOPEN_BACKEND says; on this CPU-only suite a
// CUDA handle must fail with a status (NotImplemented without the CUDA backend, NotInitialized
// without a GPU) and leave the output untouched.
TEST(HandleApi, CreateWithNamedBackend) {
  miopenHandle_t h = nullptr;
  ASSERT_EQ(anydnnCreateWithBackend(&h, anydnnBackendCpu, nullptr), miopenStatusSuccess);
  anydnnBackend_t kind = anydnnBackendCuda;
  ASSERT_EQ(anydnnGetBackend(h, &kind), miopenStatusSuccess);
  EXPECT_EQ(kind, anydnnBackendCpu);
  EXPECT_EQ(miopenDestroy(h), miopenStatusSuccess);

  expect_failure(miopenStatusBadParm, "anydnnCreateWithBackend", "backend must be", [&] {
    return anydnnCreateWithBackend(&h, static_cast<anydnnBackend_t>(7), nullptr);
  });
  expect_failure(miopenStatusBadParm, "anydnnCreateWithBackend", "handle is a null pointer",
                 [] { return anydnnCreateWithBackend(nullptr, anydnnBackendCpu, nullptr); });
  miopenHandle_t untouched = nullptr;
  testing::internal::CaptureStderr();
  const miopenStatus_t st = anydnnCreateWithBackend(&untouched, anydnnBackendCuda, nullptr);
  testing::internal::GetCapturedStderr();
  if (st == miopenStatusSuccess) {
    miopenDestroy(untouched);  // a GPU is present: nothing more to check here
  } else {
    EXPECT_TRUE(st == miopenStatusNotImplemented || st == miopenStatusNotInitialized) << st;
    EXPECT_EQ(untouched, nullptr);
  }
}

TEST(HandleApi, VersionAndErrorStrings) {
  size_t major = 0, minor = 0, patch = 0;
  ASSERT_EQ(miopenGetVersion(&major, &minor, &patch), miopenStatusSuccess);
  EXPECT_EQ(major, static_cast<size_t>(MIOPEN_VERSION_MAJOR));
  EXPECT_EQ(minor, static_cast<size_t>(MIOPEN_VERSION_MINOR));
  EXPECT_EQ(patch, static_cast<size_t>(MIOPEN_VERSION_PATCH));
  EXPECT_STREQ(miopenGetErrorString(miopenStatusSuccess), "miopenStatusSuccess");
  EXPECT_STREQ(miopenGetErrorString(miopenStatusBadParm), "miopenStatusBadParm");
  EXPECT_STREQ(miopenGetErrorString(miopenStatusVersionMismatch), "miopenStatusVersionMismatch");
  EXPECT_STREQ(miopenGetErrorString(static_cast<miopenStatus_t>(42)), "Unknown error status");
}

// anydnnGetLastErrorString: the failing call's name and one-line reason (no file:line), kept
// per thread (a failure on another thread does not replace it), truncated to the buffer with a
// NUL, and left alone by later successes.
TEST(HandleApi, LastErrorStringIsPerThreadAndTruncates) {
  miopenTensorDescriptor_t t = nullptr;
  ASSERT_EQ(miopenCreateTensorDescriptor(&t), miopenStatusSuccess);
  EXPECT_EQ(miopenSet4dTensorDescriptor(t, miopenFloat, 1, -3, 4, 4), miopenStatusBadParm);
  char msg[512] = "poison";
  anydnnGetLastErrorString(msg, sizeof msg);
  const std::string mine = msg;
  EXPECT_EQ(mine.rfind("miopenSet4dTensorDescriptor: ", 0), 0u) << mine;
  EXPECT_EQ(mine.find(".cpp:"), std::string::npos) << mine;
  std::string other;
  std::thread([&] {
    char m[512] = "poison";
    anydnnGetLastErrorString(m, sizeof m);
    EXPECT_STREQ(m, "");  // this thread has not failed yet
    EXPECT_EQ(miopenDestroyTensorDescriptor(nullptr), miopenStatusBadParm);
    anydnnGetLastErrorString(m, sizeof m);
    other = m;
  }).join();
  EXPECT_EQ(other.rfind("miopenDestroyTensorDescriptor: ", 0), 0u) << other;
  EXPECT_EQ(miopenSet4dTensorDescriptor(t, miopenFloat, 1, 3, 4, 4), miopenStatusSuccess);
  anydnnGetLastErrorString(msg, sizeof msg);
  EXPECT_EQ(std::string(msg), mine);
  char small[8] = "xxxxxxx";
  anydnnGetLastErrorString(small, sizeof small);
  EXPECT_STREQ(small, "miopenS");
  anydnnGetLastErrorString(nullptr, 10);  // no buffer: nothing written, no crash
  EXPECT_EQ(miopenDestroyTensorDescriptor(t), miopenStatusSuccess);
}

TEST(HandleApi, EnumValuesMatchMIOpen) {
  EXPECT_EQ(miopenStatusNotImplemented, 6);
  EXPECT_EQ(miopenStatusVersionMismatch, 10);
  EXPECT_EQ(miopenBFloat16, 5);
  EXPECT_EQ(miopenDouble, 6);
  EXPECT_EQ(miopenTensorNDHWC, 8);
  EXPECT_EQ(miopenConvolutionFwdAlgoImplicitGEMM, 5);
  EXPECT_EQ(miopenTransposeBwdDataAlgoGEMM, 4);
  EXPECT_EQ(miopenConvolutionBwdWeightsAlgoWinograd, 3);
  EXPECT_EQ(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1);
  EXPECT_EQ(miopenBNSpatial, 1);
  EXPECT_EQ(miopenGRU, 3);
  EXPECT_EQ(miopenRNNDataBatchMajorPadded, 3);
  EXPECT_EQ(miopenActivationELU, 9);
}

TEST(TensorApi, Set4dAndGet4d) {
  Tensor t;
  ASSERT_EQ(miopenSet4dTensorDescriptor(t, miopenHalf, 2, 3, 4, 5), miopenStatusSuccess);
  miopenDataType_t dt;
  int n, c, h, w, ns, cs, hs, ws;
  ASSERT_EQ(miopenGet4dTensorDescriptor(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            miopenStatusSuccess);
  EXPECT_EQ(dt, miopenHalf);
  EXPECT_EQ((std::vector<int>{n, c, h, w, ns, cs, hs, ws}),
            (std::vector<int>{2, 3, 4, 5, 60, 20, 5, 1}));
  size_t bytes = 0;
  EXPECT_EQ(miopenGetTensorNumBytes(t, &bytes), miopenStatusSuccess);
  EXPECT_EQ(bytes, 120u * 2);
}

TEST(TensorApi, StridedAndLayoutDescriptors) {
  Tensor t;
  ASSERT_EQ(miopenSet4dTensorDescriptorEx(t, miopenFloat, 2, 3, 4, 5, 100, 30, 6, 1),
            miopenStatusSuccess);
  size_t bytes = 0;
  EXPECT_EQ(miopenGetTensorNumBytes(t, &bytes), miopenStatusSuccess);
  EXPECT_EQ(bytes, (1 + 100 + 2 * 30 + 3 * 6 + 4) * 4u);

  const int lens[] = {2, 3, 4, 5};
  ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(t, miopenFloat, miopenTensorNHWC, lens, 4),
            miopenStatusSuccess);
  int size = 0;
  EXPECT_EQ(miopenGetTensorDescriptorSize(t, &size), miopenStatusSuccess);
  ASSERT_EQ(size, 4);
  int dims[4], strides[4];
  miopenDataType_t dt;
  ASSERT_EQ(miopenGetTensorDescriptor(t, &dt, dims, strides), miopenStatusSuccess);
  EXPECT_EQ((std::vector<int>(dims, dims + 4)), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ((std::vector<int>(strides, strides + 4)), (std::vector<int>{60, 1, 15, 3}));

  const int lens5[] = {1, 2, 3, 4, 5};
  ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(t, miopenBFloat16, miopenTensorNDHWC, lens5, 5),
            miopenStatusSuccess);
  int dims5[5], strides5[5];
  ASSERT_EQ(miopenGetTensorDescriptor(t, &dt, dims5, strides5), miopenStatusSuccess);
  EXPECT_EQ(strides5[1], 1);
  EXPECT_EQ(dt, miopenBFloat16);

  // Packed by default when strides are NULL; int8, int32 and double descriptors are allowed.
  const int d3[] = {7, 8, 9};
  for (miopenDataType_t type : {miopenInt8, miopenInt32, miopenDouble, miopenFloat}) {
    ASSERT_EQ(miopenSetTensorDescriptor(t, type, 3, d3, nullptr), miopenStatusSuccess);
    int out_d[3], out_s[3];
    ASSERT_EQ(miopenGetTensorDescriptor(t, &dt, out_d, out_s), miopenStatusSuccess);
    EXPECT_EQ(out_s[0], 72);
    EXPECT_EQ(dt, type);
  }
}

TEST(TensorApi, InvalidArgumentsAreRejectedAndLoseNothing) {
  Tensor t(miopenFloat, {2, 3, 4, 5});
  expect_failure(miopenStatusBadParm, "miopenSet4dTensorDescriptor", "must be > 0",
                 [&] { return miopenSet4dTensorDescriptor(t, miopenFloat, 2, 0, 4, 5); });
  expect_failure(miopenStatusBadParm, "miopenSet4dTensorDescriptor", "must be > 0",
                 [&] { return miopenSet4dTensorDescriptor(t, miopenFloat, -2, 3, 4, 5); });
  expect_failure(miopenStatusBadParm, "miopenSet4dTensorDescriptor", "invalid data type", [&] {
    return miopenSet4dTensorDescriptor(t, static_cast<miopenDataType_t>(4), 1, 1, 1, 1);
  });
  const int dims[] = {1, 2, 3};
  const int bad_strides[] = {6, 0, 1};
  expect_failure(miopenStatusBadParm, "miopenSetTensorDescriptor", "stridesA[1]",
                 [&] { return miopenSetTensorDescriptor(t, miopenFloat, 3, dims, bad_strides); });
  expect_failure(miopenStatusBadParm, "miopenSetTensorDescriptor", "nbDims",
                 [&] { return miopenSetTensorDescriptor(t, miopenFloat, 0, dims, nullptr); });
  expect_failure(miopenStatusBadParm, "miopenSetTensorDescriptor", "dimsA is a null pointer",
                 [&] { return miopenSetTensorDescriptor(t, miopenFloat, 3, nullptr, nullptr); });
  const int lens[] = {2, 3, 4, 5};
  expect_failure(
      miopenStatusBadParm, "miopenSetNdTensorDescriptorWithLayout", "needs 5 lengths", [&] {
        return miopenSetNdTensorDescriptorWithLayout(t, miopenFloat, miopenTensorNCDHW, lens, 4);
      });
  expect_failure(
      miopenStatusNotImplemented, "miopenSetNdTensorDescriptorWithLayout", "vectorized", [&] {
        return miopenSetNdTensorDescriptorWithLayout(t, miopenFloat, miopenTensorNCHWc4, lens, 4);
      });
  // None of the failed calls changed the descriptor.
  int n, c, h, w, ns, cs, hs, ws;
  miopenDataType_t dt;
  ASSERT_EQ(miopenGet4dTensorDescriptor(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            miopenStatusSuccess);
  EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 3, 4, 5}));

  Tensor t5(miopenFloat, {1, 2, 3, 4, 5});
  expect_failure(miopenStatusBadParm, "miopenGet4dTensorDescriptor", "not 4", [&] {
    return miopenGet4dTensorDescriptor(t5, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws);
  });
  Tensor unset;
  expect_failure(miopenStatusBadParm, "miopenGetTensorNumBytes", "has not been set", [&] {
    size_t b;
    return miopenGetTensorNumBytes(unset, &b);
  });
  expect_failure(miopenStatusBadParm, "miopenCreateTensorDescriptor", "null pointer",
                 [] { return miopenCreateTensorDescriptor(nullptr); });
}

}  // namespace
}  // namespace anydnn::test
