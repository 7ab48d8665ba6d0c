// Public C API: convolution descriptors, Find, the legacy run call, immediate mode, and every
// kind of bad input, each returning its status with a logged reason.
#include <gtest/gtest.h>

#include <miopen/anydnn.h>
#include <miopen/miopen.h>
#include <set>

#include <algorithm>

#include "api_test_util.hpp"
#include "common_test_util.hpp"
#include "conv_reference.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

using driver::HostTensor;

TEST(ConvDescriptorApi, InitAndGet) {
  Conv c(1, 2, 1, 1);
  miopenConvolutionMode_t mode;
  int ph, pw, sh, sw, dh, dw;
  ASSERT_EQ(miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw),
            miopenStatusSuccess);
  EXPECT_EQ((std::vector<int>{mode, ph, pw, sh, sw, dh, dw}),
            (std::vector<int>{0, 1, 1, 2, 2, 1, 1}));
  int dims = 0;
  EXPECT_EQ(miopenGetConvolutionSpatialDim(c, &dims), miopenStatusSuccess);
  EXPECT_EQ(dims, 2);

  const int pads[] = {1, 2, 3}, strides[] = {2, 1, 1}, dils[] = {1, 1, 2};
  ASSERT_EQ(miopenInitConvolutionNdDescriptor(c, 3, pads, strides, dils, miopenTranspose),
            miopenStatusSuccess);
  int got = 0, p[3], s[3], d[3];
  ASSERT_EQ(miopenGetConvolutionNdDescriptor(c, 3, &got, p, s, d, &mode), miopenStatusSuccess);
  EXPECT_EQ(got, 3);
  EXPECT_EQ(mode, miopenTranspose);
  EXPECT_EQ((std::vector<int>(p, p + 3)), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ((std::vector<int>(d, d + 3)), (std::vector<int>{1, 1, 2}));
  const int adj[] = {1, 0, 0};
  EXPECT_EQ(miopenSetTransposeConvNdOutputPadding(c, 3, adj), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenGetConvolutionDescriptor", "2-D", [&] {
    return miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw);
  });
  expect_failure(miopenStatusBadParm, "miopenGetConvolutionNdDescriptor", "exceeds",
                 [&] { return miopenGetConvolutionNdDescriptor(c, 4, &got, p, s, d, &mode); });

  // Deprecated group/depthwise modes mean "convolution" (groups come from the group count).
  ASSERT_EQ(miopenInitConvolutionDescriptor(c, miopenDepthwise, 0, 0, 1, 1, 1, 1),
            miopenStatusSuccess);
  ASSERT_EQ(miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw),
            miopenStatusSuccess);
  EXPECT_EQ(mode, miopenConvolution);

  int groups = 0;
  EXPECT_EQ(miopenSetConvolutionGroupCount(c, 4), miopenStatusSuccess);
  EXPECT_EQ(miopenGetConvolutionGroupCount(c, &groups), miopenStatusSuccess);
  EXPECT_EQ(groups, 4);
  int value = 0;
  EXPECT_EQ(miopenSetConvolutionAttribute(c, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1),
            miopenStatusSuccess);
  EXPECT_EQ(miopenGetConvolutionAttribute(c, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, &value),
            miopenStatusSuccess);
  EXPECT_EQ(value, 1);
}

TEST(ConvDescriptorApi, BadArguments) {
  Conv c;
  expect_failure(miopenStatusBadParm, "miopenInitConvolutionDescriptor", "invalid pad", [&] {
    return miopenInitConvolutionDescriptor(c, miopenConvolution, -1, 0, 1, 1, 1, 1);
  });
  expect_failure(miopenStatusBadParm, "miopenInitConvolutionDescriptor", "invalid stride", [&] {
    return miopenInitConvolutionDescriptor(c, miopenConvolution, 0, 0, 0, 1, 1, 1);
  });
  expect_failure(miopenStatusBadParm, "miopenInitConvolutionDescriptor", "invalid dilation", [&] {
    return miopenInitConvolutionDescriptor(c, miopenConvolution, 0, 0, 1, 1, 1, -1);
  });
  expect_failure(miopenStatusBadParm, "miopenSetConvolutionGroupCount", "group count",
                 [&] { return miopenSetConvolutionGroupCount(c, 0); });
  expect_failure(miopenStatusBadParm, "miopenSetConvolutionAttribute", "FP16_ALT_IMPL", [&] {
    return miopenSetConvolutionAttribute(c, MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, 3);
  });
  expect_failure(miopenStatusBadParm, "miopenSetTransposeConvNdOutputPadding", "spatialDim", [&] {
    const int adj[] = {0, 0, 0};
    return miopenSetTransposeConvNdOutputPadding(c, 3, adj);
  });
  // The descriptor kept its earlier state through all of that.
  miopenConvolutionMode_t mode;
  int ph, pw, sh, sw, dh, dw;
  ASSERT_EQ(miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw),
            miopenStatusSuccess);
  EXPECT_EQ((std::vector<int>{ph, sh, dw}), (std::vector<int>{0, 1, 1}));
}

TEST(ConvDescriptorApi, OutputDims) {
  Conv c(1, 2, 1, 2);
  Tensor x(miopenFloat, {4, 8, 15, 16});
  Tensor w(miopenFloat, {6, 4, 3, 3});
  int n, k, h, wd;
  ASSERT_EQ(miopenGetConvolutionForwardOutputDim(c, x, w, &n, &k, &h, &wd), miopenStatusSuccess);
  EXPECT_EQ((std::vector<int>{n, k, h, wd}), (std::vector<int>{4, 6, 8, 8}));
  int nd = 0, out[4];
  ASSERT_EQ(miopenGetConvolutionNdForwardOutputDim(c, x, w, &nd, out), miopenStatusSuccess);
  EXPECT_EQ(nd, 4);
  EXPECT_EQ(out[3], 8);
  Tensor bad_w(miopenFloat, {6, 3, 3, 3});
  expect_failure(
      miopenStatusBadParm, "miopenGetConvolutionForwardOutputDim", "channels do not match",
      [&] { return miopenGetConvolutionForwardOutputDim(c, x, bad_w, &n, &k, &h, &wd); });
  Conv g3(1, 1, 1, 3);
  expect_failure(miopenStatusBadParm, "miopenGetConvolutionForwardOutputDim",
                 "channels do not match",
                 [&] { return miopenGetConvolutionForwardOutputDim(g3, x, w, &n, &k, &h, &wd); });
}

// A convolution set up through the public API, with host data and its reference result.
struct Fixture {
  Handle handle;
  Tensor x, w, y;
  Conv conv;
  HostTensor hx, hw, hy;
  std::vector<double> expected;
  unsigned seed = fresh_seed();

  Fixture(std::vector<int> xl, std::vector<int> wl, int pad, int stride, int dil, int groups)
      : x(miopenFloat, xl), w(miopenFloat, wl), conv(pad, stride, dil, groups) {
    int nd = 0;
    std::vector<int> yl(4);
    EXPECT_EQ(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &nd, yl.data()),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetTensorDescriptor(y.d, miopenFloat, 4, yl.data(), nullptr),
              miopenStatusSuccess);
    hx = HostTensor::from_descriptor(x);
    hw = HostTensor::from_descriptor(w);
    hy = HostTensor::from_descriptor(y);
    std::mt19937 rng(seed);
    fill_random(hx, rng);
    fill_random(hw, rng);
    expected = ref::conv_forward(hx.view(), hw.view(),
                                 {{pad, pad}, {stride, stride}, {dil, dil}, groups}, hy.lens);
  }
  double error() const { return ref::relative_rms(expected, ref::to_logical(hy.view())); }
};

TEST(ConvApi, FindThenForwardMatchesReference) {
  Fixture f({2, 6, 11, 13}, {4, 3, 3, 3}, 1, 2, 1, 2);
  SCOPED_TRACE(seed_trace(f.seed));
  size_t ws_size = 0;
  ASSERT_EQ(miopenConvolutionForwardGetWorkSpaceSize(f.handle, f.w, f.x, f.conv, f.y, &ws_size),
            miopenStatusSuccess);
  EXPECT_GT(ws_size, 0u);  // GEMM needs its column buffer: the max over solvers
  std::vector<uint8_t> ws(ws_size);
  miopenConvAlgoPerf_t perf[4];
  int found = 0;
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(f.handle, f.x, f.hx.data(), f.w, f.hw.data(),
                                                  f.conv, f.y, f.hy.data(), 4, &found, perf,
                                                  ws.data(), ws.size(), false),
            miopenStatusSuccess);
  // Best of each algorithm: implicit GEMM and GEMM, fastest first; the naive direct solver is
  // a fallback that Find times only when nothing else fits (FindWithoutWorkspace... below).
  ASSERT_EQ(found, 2);
  std::set<int> algos;
  for (int i = 0; i < found; ++i) {
    algos.insert(perf[i].fwd_algo);
    EXPECT_GT(perf[i].memory, 0u);
    EXPECT_GT(perf[i].time, 0.0f);
  }
  EXPECT_EQ(algos,
            (std::set<int>{miopenConvolutionFwdAlgoGEMM, miopenConvolutionFwdAlgoImplicitGEMM}));
  EXPECT_LE(perf[0].time, perf[1].time);
  for (int i = 0; i < found; ++i) {
    SCOPED_TRACE(perf[i].fwd_algo);
    f.hy.poison();
    const float alpha = 1.0f, beta = 0.0f;
    ASSERT_EQ(miopenConvolutionForward(f.handle, &alpha, f.x, f.hx.data(), f.w, f.hw.data(), f.conv,
                                       perf[i].fwd_algo, &beta, f.y, f.hy.data(), ws.data(),
                                       perf[i].memory),
              miopenStatusSuccess);
    EXPECT_LE(f.error(), 1.5e-6);
  }
}

TEST(ConvApi, ForwardWithoutFindFails) {
  Fixture f({1, 4, 8, 8}, {4, 4, 3, 3}, 1, 1, 1, 1);
  const float alpha = 1.0f, beta = 0.0f;
  expect_failure(miopenStatusUnknownError, "miopenConvolutionForward", "Was find executed?", [&] {
    return miopenConvolutionForward(f.handle, &alpha, f.x, f.hx.data(), f.w, f.hw.data(), f.conv,
                                    miopenConvolutionFwdAlgoDirect, &beta, f.y, f.hy.data(),
                                    nullptr, 0);
  });
}

TEST(ConvApi, FindWithoutWorkspaceSkipsGemmAndProfilingTimes) {
  Fixture f({1, 4, 8, 8}, {4, 4, 3, 3}, 1, 1, 1, 1);
  ASSERT_EQ(miopenEnableProfiling(f.handle, true), miopenStatusSuccess);
  miopenConvAlgoPerf_t perf[4];
  int found = 0;
  ASSERT_EQ(
      miopenFindConvolutionForwardAlgorithm(f.handle, f.x, f.hx.data(), f.w, f.hw.data(), f.conv,
                                            f.y, f.hy.data(), 4, &found, perf, nullptr, 0, false),
      miopenStatusSuccess);
  ASSERT_EQ(found, 1);
  EXPECT_EQ(perf[0].fwd_algo, miopenConvolutionFwdAlgoDirect);
  EXPECT_EQ(perf[0].memory, 0u);
  const float alpha = 1.0f, beta = 0.0f;
  // GEMM was skipped in Find, so it has no invoker on this handle.
  expect_failure(miopenStatusUnknownError, "miopenConvolutionForward", "Was find executed?", [&] {
    return miopenConvolutionForward(f.handle, &alpha, f.x, f.hx.data(), f.w, f.hw.data(), f.conv,
                                    miopenConvolutionFwdAlgoGEMM, &beta, f.y, f.hy.data(), nullptr,
                                    0);
  });
  f.hy.poison();
  ASSERT_EQ(
      miopenConvolutionForward(f.handle, &alpha, f.x, f.hx.data(), f.w, f.hw.data(), f.conv,
                               miopenConvolutionFwdAlgoDirect, &beta, f.y, f.hy.data(), nullptr, 0),
      miopenStatusSuccess);
  EXPECT_LE(f.error(), 1.5e-6);
  float ms = 0.0f;
  EXPECT_EQ(miopenGetKernelTime(f.handle, &ms), miopenStatusSuccess);
  EXPECT_GT(ms, 0.0f);
}

TEST(ConvApi, BadInputs) {
  Fixture f({2, 6, 11, 13}, {4, 3, 3, 3}, 1, 2, 1, 2);
  size_t ws_size = 0;
  ASSERT_EQ(miopenConvolutionForwardGetWorkSpaceSize(f.handle, f.w, f.x, f.conv, f.y, &ws_size),
            miopenStatusSuccess);
  std::vector<uint8_t> ws(ws_size);
  miopenConvAlgoPerf_t perf[2];
  int found = 0;
  const auto find = [&](miopenTensorDescriptor_t x, miopenTensorDescriptor_t w,
                        miopenConvolutionDescriptor_t c, miopenTensorDescriptor_t y, const void* xb,
                        void* yb, int request) {
    return miopenFindConvolutionForwardAlgorithm(f.handle, x, xb, w, f.hw.data(), c, y, yb, request,
                                                 &found, perf, ws.data(), ws.size(), false);
  };
  const char* fn = "miopenFindConvolutionForwardAlgorithm";
  // Wrong output descriptor.
  Tensor wrong_y(miopenFloat, {2, 4, 6, 6});
  expect_failure(miopenStatusBadParm, fn, "do not match the convolution",
                 [&] { return find(f.x, f.w, f.conv, wrong_y, f.hx.data(), f.hy.data(), 2); });
  // Channel mismatch and groups that do not divide the channels.
  Tensor w_bad(miopenFloat, {4, 4, 3, 3});
  expect_failure(miopenStatusBadParm, fn, "channels do not match",
                 [&] { return find(f.x, w_bad, f.conv, f.y, f.hx.data(), f.hy.data(), 2); });
  Conv g4(1, 2, 1, 4);
  expect_failure(miopenStatusBadParm, fn, "channels do not match",
                 [&] { return find(f.x, f.w, g4, f.y, f.hx.data(), f.hy.data(), 2); });
  // Zero and negative lengths never make it into a descriptor.
  Tensor z;
  expect_failure(miopenStatusBadParm, "miopenSet4dTensorDescriptor", "must be > 0",
                 [&] { return miopenSet4dTensorDescriptor(z, miopenFloat, 0, 1, 1, 1); });
  expect_failure(miopenStatusBadParm, fn, "has not been set",
                 [&] { return find(z, f.w, f.conv, f.y, f.hx.data(), f.hy.data(), 2); });
  // Null pointers.
  expect_failure(miopenStatusBadParm, fn, "Buffers cannot be NULL",
                 [&] { return find(f.x, f.w, f.conv, f.y, nullptr, f.hy.data(), 2); });
  expect_failure(miopenStatusBadParm, fn, "xDesc is a null pointer",
                 [&] { return find(nullptr, f.w, f.conv, f.y, f.hx.data(), f.hy.data(), 2); });
  expect_failure(miopenStatusBadParm, fn, "convDesc is a null pointer",
                 [&] { return find(f.x, f.w, nullptr, f.y, f.hx.data(), f.hy.data(), 2); });
  expect_failure(miopenStatusBadParm, fn, "requestAlgoCount",
                 [&] { return find(f.x, f.w, f.conv, f.y, f.hx.data(), f.hy.data(), 0); });
  expect_failure(miopenStatusBadParm, fn, "returnedAlgoCount is a null pointer", [&] {
    return miopenFindConvolutionForwardAlgorithm(f.handle, f.x, f.hx.data(), f.w, f.hw.data(),
                                                 f.conv, f.y, f.hy.data(), 1, nullptr, perf,
                                                 ws.data(), ws.size(), false);
  });
  expect_failure(miopenStatusBadParm, "miopenConvolutionForwardGetWorkSpaceSize",
                 "handle is a null pointer", [&] {
                   return miopenConvolutionForwardGetWorkSpaceSize(nullptr, f.w, f.x, f.conv, f.y,
                                                                   &ws_size);
                 });
  // Mixed data types.
  Tensor y_half(miopenHalf, {2, 4, 6, 7});
  expect_failure(miopenStatusBadParm, fn, "data types differ",
                 [&] { return find(f.x, f.w, f.conv, y_half, f.hx.data(), f.hy.data(), 2); });

  // After a successful Find: scaling factors, workspace size and algorithm checks.
  ASSERT_EQ(find(f.x, f.w, f.conv, f.y, f.hx.data(), f.hy.data(), 2), miopenStatusSuccess);
  const int gemm =
      std::find_if(perf, perf + found,
                   [](const auto& p) { return p.fwd_algo == miopenConvolutionFwdAlgoGEMM; }) -
      perf;
  ASSERT_LT(gemm, found);
  const float one = 1.0f, zero = 0.0f;
  const auto fwd = [&](const float* a, const float* b, miopenConvFwdAlgorithm_t algo, size_t size) {
    return miopenConvolutionForward(f.handle, a, f.x, f.hx.data(), f.w, f.hw.data(), f.conv, algo,
                                    b, f.y, f.hy.data(), ws.data(), size);
  };
  expect_failure(miopenStatusBadParm, "miopenConvolutionForward", "alpha is a null pointer",
                 [&] { return fwd(nullptr, &zero, miopenConvolutionFwdAlgoGEMM, ws.size()); });
  expect_failure(miopenStatusBadParm, "miopenConvolutionForward", "too small", [&] {
    return fwd(&one, &zero, miopenConvolutionFwdAlgoGEMM, perf[gemm].memory - 1);
  });
  expect_failure(miopenStatusBadParm, "miopenConvolutionForward", "invalid algorithm", [&] {
    return fwd(&one, &zero, static_cast<miopenConvFwdAlgorithm_t>(4), ws.size());
  });
  EXPECT_EQ(fwd(&one, &zero, miopenConvolutionFwdAlgoGEMM, ws.size()), miopenStatusSuccess);
}

TEST(ConvApi, ImmediateMode) {
  Fixture f({2, 4, 9, 9}, {8, 4, 3, 3}, 1, 1, 1, 1);
  SCOPED_TRACE(seed_trace(f.seed));
  size_t count = 0;
  ASSERT_EQ(miopenConvolutionForwardGetSolutionCount(f.handle, f.w, f.x, f.conv, f.y, &count),
            miopenStatusSuccess);
  // Every applicable solver (Winograd, implicit GEMM, GEMM), the naive fallback last.
  ASSERT_GE(count, 3u);
  std::vector<miopenConvSolution_t> sols(count);
  ASSERT_EQ(miopenConvolutionForwardGetSolution(f.handle, f.w, f.x, f.conv, f.y, count, &count,
                                                sols.data()),
            miopenStatusSuccess);
  // Without a find record the ranking is the registry's priority, and times are not measured.
  for (const auto& s : sols)
    EXPECT_LT(s.time, 0.0f);
  const char* name = nullptr;
  ASSERT_EQ(anydnnGetConvSolverName(f.handle, sols[0].solution_id, &name), miopenStatusSuccess);
  EXPECT_STRNE(name, "ConvDirectNaiveConvFwd");
  for (const auto& s : sols) {
    SCOPED_TRACE(s.solution_id);
    size_t ws_size = 0;
    ASSERT_EQ(miopenConvolutionForwardGetSolutionWorkspaceSize(f.handle, f.w, f.x, f.conv, f.y,
                                                               s.solution_id, &ws_size),
              miopenStatusSuccess);
    EXPECT_EQ(ws_size, s.workspace_size);
    ASSERT_EQ(
        miopenConvolutionForwardCompileSolution(f.handle, f.w, f.x, f.conv, f.y, s.solution_id),
        miopenStatusSuccess);
    std::vector<uint8_t> ws(ws_size);
    f.hy.poison();
    ASSERT_EQ(
        miopenConvolutionForwardImmediate(f.handle, f.w, f.hw.data(), f.x, f.hx.data(), f.conv, f.y,
                                          f.hy.data(), ws.data(), ws.size(), s.solution_id),
        miopenStatusSuccess);
    EXPECT_LE(f.error(), 1.5e-6);
  }
  // After Find the solutions carry measured times, fastest first.
  size_t ws_size = 0;
  miopenConvolutionForwardGetWorkSpaceSize(f.handle, f.w, f.x, f.conv, f.y, &ws_size);
  std::vector<uint8_t> ws(ws_size);
  miopenConvAlgoPerf_t perf[4];
  int found = 0;
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(f.handle, f.x, f.hx.data(), f.w, f.hw.data(),
                                                  f.conv, f.y, f.hy.data(), 4, &found, perf,
                                                  ws.data(), ws.size(), false),
            miopenStatusSuccess);
  ASSERT_EQ(miopenConvolutionForwardGetSolution(f.handle, f.w, f.x, f.conv, f.y, count, &count,
                                                sols.data()),
            miopenStatusSuccess);
  ASSERT_EQ(count, sols.size());
  const size_t timed = count - 1;
  for (size_t i = 0; i < timed; ++i) {
    EXPECT_GE(sols[i].time, 0.0f);  // measured by Find, fastest first
    if (i > 0) EXPECT_LE(sols[i - 1].time, sols[i].time);
  }
  EXPECT_EQ(static_cast<int>(sols[0].algorithm), static_cast<int>(perf[0].fwd_algo));
  EXPECT_LT(sols[timed].time, 0.0f);  // the fallback was not timed
  ASSERT_EQ(anydnnGetConvSolverName(f.handle, sols[timed].solution_id, &name), miopenStatusSuccess);
  EXPECT_STREQ(name, "ConvDirectNaiveConvFwd");

  expect_failure(miopenStatusBadParm, "miopenConvolutionForwardImmediate", "solution id 999", [&] {
    return miopenConvolutionForwardImmediate(f.handle, f.w, f.hw.data(), f.x, f.hx.data(), f.conv,
                                             f.y, f.hy.data(), nullptr, 0, 999);
  });
  expect_failure(miopenStatusBadParm, "miopenConvolutionForwardImmediate", "too small", [&] {
    return miopenConvolutionForwardImmediate(
        f.handle, f.w, f.hw.data(), f.x, f.hx.data(), f.conv, f.y, f.hy.data(), nullptr, 0,
        sols[0].workspace_size > 0 ? sols[0].solution_id : sols[1].solution_id);
  });
}

// (miopenSetTensor, once the example of a family not implemented yet, is tested with the other
// tensor ops in tensor_op_api_test.cpp.)

}  // namespace
}  // namespace anydnn::test
