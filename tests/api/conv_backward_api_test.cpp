// Public C API: backward data and weights (Find + run, immediate mode), transposed
// convolutions, and the bias calls, each against the reference.
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include "api_test_util.hpp"
#include "common_test_util.hpp"
#include "conv_reference.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

using driver::HostTensor;

// Descriptors of a 2-D convolution (plain or transposed) and host data for every tensor.
struct Problem {
  Handle handle;
  Tensor x, w, y;
  miopenConvolutionDescriptor_t conv = nullptr;
  HostTensor hx, hw, hy;
  ref::ConvParams params;
  unsigned seed = fresh_seed();

  Problem(std::vector<int> xl, std::vector<int> wl, int pad, int stride, int groups,
          miopenConvolutionMode_t mode, int adj = 0)
      : x(miopenFloat, xl), w(miopenFloat, wl) {
    EXPECT_EQ(miopenCreateConvolutionDescriptor(&conv), miopenStatusSuccess);
    EXPECT_EQ(miopenInitConvolutionDescriptor(conv, mode, pad, pad, stride, stride, 1, 1),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetConvolutionGroupCount(conv, groups), miopenStatusSuccess);
    if (mode == miopenTranspose)
      EXPECT_EQ(miopenSetTransposeConvOutputPadding(conv, adj, adj), miopenStatusSuccess);
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
    for (HostTensor* t : {&hx, &hw, &hy})
      fill_random(*t, rng);
    params = {{pad, pad}, {stride, stride}, {1, 1}, groups};
  }
  ~Problem() { miopenDestroyConvolutionDescriptor(conv); }
};

std::vector<uint8_t> workspace(size_t bytes) {
  return std::vector<uint8_t>(bytes);
}

TEST(ConvBackwardApi, FindAndRunBackwardDataAndWeights) {
  Problem p({2, 6, 11, 10}, {8, 3, 3, 3}, 1, 2, 2, miopenConvolution);
  SCOPED_TRACE(seed_trace(p.seed));
  const float alpha = 1.0f, beta = 0.0f;
  // Backward data: dx from dy (hy) and w.
  size_t ws_size = 0;
  ASSERT_EQ(
      miopenConvolutionBackwardDataGetWorkSpaceSize(p.handle, p.y, p.w, p.conv, p.x, &ws_size),
      miopenStatusSuccess);
  auto ws = workspace(ws_size);
  HostTensor dx = HostTensor::from_descriptor(p.x);
  miopenConvAlgoPerf_t perf[2];
  int found = 0;
  ASSERT_EQ(miopenFindConvolutionBackwardDataAlgorithm(p.handle, p.y, p.hy.data(), p.w, p.hw.data(),
                                                       p.conv, p.x, dx.data(), 2, &found, perf,
                                                       ws.data(), ws.size(), false),
            miopenStatusSuccess);
  ASSERT_GE(found, 1);
  dx.poison();
  ASSERT_EQ(miopenConvolutionBackwardData(p.handle, &alpha, p.y, p.hy.data(), p.w, p.hw.data(),
                                          p.conv, perf[0].bwd_data_algo, &beta, p.x, dx.data(),
                                          ws.data(), perf[0].memory),
            miopenStatusSuccess);
  EXPECT_LE(ref::relative_rms(ref::conv_backward_data(p.hy.view(), p.hw.view(), p.params, dx.lens),
                              ref::to_logical(dx.view())),
            1.5e-6);
  // The deprecated transpose-GEMM algorithm value is GEMM.
  EXPECT_EQ(miopenConvolutionBackwardData(p.handle, &alpha, p.y, p.hy.data(), p.w, p.hw.data(),
                                          p.conv, miopenTransposeBwdDataAlgoGEMM, &beta, p.x,
                                          dx.data(), ws.data(), ws.size()),
            miopenStatusSuccess);

  // Backward weights: dw from x and dy.
  ASSERT_EQ(
      miopenConvolutionBackwardWeightsGetWorkSpaceSize(p.handle, p.y, p.x, p.conv, p.w, &ws_size),
      miopenStatusSuccess);
  ws = workspace(ws_size);
  HostTensor dw = HostTensor::from_descriptor(p.w);
  ASSERT_EQ(miopenFindConvolutionBackwardWeightsAlgorithm(
                p.handle, p.y, p.hy.data(), p.x, p.hx.data(), p.conv, p.w, dw.data(), 2, &found,
                perf, ws.data(), ws.size(), false),
            miopenStatusSuccess);
  dw.poison();
  ASSERT_EQ(miopenConvolutionBackwardWeights(p.handle, &alpha, p.y, p.hy.data(), p.x, p.hx.data(),
                                             p.conv, perf[0].bwd_weights_algo, &beta, p.w,
                                             dw.data(), ws.data(), perf[0].memory),
            miopenStatusSuccess);
  EXPECT_LE(
      ref::relative_rms(ref::conv_backward_weights(p.hx.view(), p.hy.view(), p.params, dw.lens),
                        ref::to_logical(dw.view())),
      3e-6);
}

TEST(ConvBackwardApi, ImmediateModeEverySolutionOfEveryDirection) {
  Problem p({2, 4, 9, 8}, {6, 4, 3, 3}, 1, 1, 1, miopenConvolution);
  SCOPED_TRACE(seed_trace(p.seed));
  HostTensor dx = HostTensor::from_descriptor(p.x), dw = HostTensor::from_descriptor(p.w);
  const auto expect_dx = ref::conv_backward_data(p.hy.view(), p.hw.view(), p.params, dx.lens);
  const auto expect_dw = ref::conv_backward_weights(p.hx.view(), p.hy.view(), p.params, dw.lens);
  size_t count = 0;
  miopenConvSolution_t sols[8];
  ASSERT_EQ(
      miopenConvolutionBackwardDataGetSolution(p.handle, p.y, p.w, p.conv, p.x, 8, &count, sols),
      miopenStatusSuccess);
  // Every applicable solver (Winograd, GEMM, ...), the naive fallback last.
  ASSERT_GE(count, 2u);
  const char* last = nullptr;
  ASSERT_EQ(anydnnGetConvSolverName(p.handle, sols[count - 1].solution_id, &last),
            miopenStatusSuccess);
  EXPECT_STREQ(last, "ConvDirectNaiveConvBwd");
  for (size_t i = 0; i < count; ++i) {
    size_t ws_size = 0;
    ASSERT_EQ(miopenConvolutionBackwardDataGetSolutionWorkspaceSize(p.handle, p.y, p.w, p.conv, p.x,
                                                                    sols[i].solution_id, &ws_size),
              miopenStatusSuccess);
    auto ws = workspace(ws_size);
    dx.poison();
    ASSERT_EQ(miopenConvolutionBackwardDataImmediate(p.handle, p.y, p.hy.data(), p.w, p.hw.data(),
                                                     p.conv, p.x, dx.data(), ws.data(), ws.size(),
                                                     sols[i].solution_id),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(expect_dx, ref::to_logical(dx.view())), 1.5e-6) << i;
  }
  ASSERT_EQ(
      miopenConvolutionBackwardWeightsGetSolutionCount(p.handle, p.y, p.x, p.conv, p.w, &count),
      miopenStatusSuccess);
  ASSERT_EQ(miopenConvolutionBackwardWeightsGetSolution(p.handle, p.y, p.x, p.conv, p.w, count,
                                                        &count, sols),
            miopenStatusSuccess);
  ASSERT_GE(count, 2u);
  ASSERT_EQ(anydnnGetConvSolverName(p.handle, sols[count - 1].solution_id, &last),
            miopenStatusSuccess);
  EXPECT_STREQ(last, "ConvDirectNaiveConvWrw");
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(miopenConvolutionBackwardWeightsCompileSolution(p.handle, p.y, p.x, p.conv, p.w,
                                                              sols[i].solution_id),
              miopenStatusSuccess);
    auto ws = workspace(sols[i].workspace_size);
    dw.poison();
    ASSERT_EQ(miopenConvolutionBackwardWeightsImmediate(p.handle, p.y, p.hy.data(), p.x,
                                                        p.hx.data(), p.conv, p.w, dw.data(),
                                                        ws.data(), ws.size(), sols[i].solution_id),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(expect_dw, ref::to_logical(dw.view())), 3e-6) << i;
  }
  // A forward solver is no backward-weights solution.
  uint64_t gemm_fwd = 0;
  ASSERT_EQ(anydnnGetConvSolverId(p.handle, "GemmFwdRest", &gemm_fwd), miopenStatusSuccess);
  expect_failure(miopenStatusBadParm, "miopenConvolutionBackwardWeightsImmediate",
                 "(GemmFwdRest) does not apply", [&] {
                   return miopenConvolutionBackwardWeightsImmediate(
                       p.handle, p.y, p.hy.data(), p.x, p.hx.data(), p.conv, p.w, dw.data(),
                       nullptr, 0, gemm_fwd);
                 });
}

// A transposed convolution is the swapped plain one: its forward is a backward-data
// computation, its backward data a forward one.
TEST(ConvBackwardApi, TransposedConvolutionAllDirections) {
  Problem p({2, 6, 5, 7}, {6, 2, 3, 3}, 1, 2, 3, miopenTranspose, 1);
  SCOPED_TRACE(seed_trace(p.seed));
  EXPECT_EQ(p.hy.lens, (std::vector<size_t>{2, 6, 10, 14}));  // s(i-1)+1+(f-1)-2p+adj
  const float alpha = 1.0f, beta = 0.0f;
  size_t ws_size = 0;
  ASSERT_EQ(miopenConvolutionForwardGetWorkSpaceSize(p.handle, p.w, p.x, p.conv, p.y, &ws_size),
            miopenStatusSuccess);
  auto ws = workspace(ws_size);
  miopenConvAlgoPerf_t perf[2];
  int found = 0;
  HostTensor y = HostTensor::from_descriptor(p.y);
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(p.handle, p.x, p.hx.data(), p.w, p.hw.data(),
                                                  p.conv, p.y, y.data(), 2, &found, perf, ws.data(),
                                                  ws.size(), false),
            miopenStatusSuccess);
  y.poison();
  ASSERT_EQ(
      miopenConvolutionForward(p.handle, &alpha, p.x, p.hx.data(), p.w, p.hw.data(), p.conv,
                               perf[0].fwd_algo, &beta, p.y, y.data(), ws.data(), perf[0].memory),
      miopenStatusSuccess);
  EXPECT_LE(ref::relative_rms(ref::conv_backward_data(p.hx.view(), p.hw.view(), p.params, y.lens),
                              ref::to_logical(y.view())),
            1.5e-6);

  ASSERT_EQ(
      miopenConvolutionBackwardDataGetWorkSpaceSize(p.handle, p.y, p.w, p.conv, p.x, &ws_size),
      miopenStatusSuccess);
  ws = workspace(ws_size);
  HostTensor dx = HostTensor::from_descriptor(p.x);
  ASSERT_EQ(miopenFindConvolutionBackwardDataAlgorithm(p.handle, p.y, p.hy.data(), p.w, p.hw.data(),
                                                       p.conv, p.x, dx.data(), 2, &found, perf,
                                                       ws.data(), ws.size(), false),
            miopenStatusSuccess);
  dx.poison();
  ASSERT_EQ(miopenConvolutionBackwardData(p.handle, &alpha, p.y, p.hy.data(), p.w, p.hw.data(),
                                          p.conv, perf[0].bwd_data_algo, &beta, p.x, dx.data(),
                                          ws.data(), perf[0].memory),
            miopenStatusSuccess);
  EXPECT_LE(ref::relative_rms(ref::conv_forward(p.hy.view(), p.hw.view(), p.params, dx.lens),
                              ref::to_logical(dx.view())),
            1.5e-6);
}

// alpha/beta: output = alpha * convolution + beta * output, in every direction. MIOpen itself
// returns NotImplemented for 2-D; anydnn blends. The forward output here has padded rows, and the
// padding must come through untouched.
TEST(ConvScalingApi, AlphaBetaBlendIntoTheOutputInEveryDirection) {
  Problem p({2, 4, 7, 9}, {6, 4, 3, 3}, 1, 1, 1, miopenConvolution);
  SCOPED_TRACE(seed_trace(p.seed));
  const float alpha = 0.75f, beta = -1.5f;
  std::mt19937 rng(p.seed + 1);
  const auto blended = [&](const std::vector<double>& conv, const std::vector<double>& old) {
    std::vector<double> r(conv.size());
    for (size_t i = 0; i < r.size(); ++i)
      r[i] = alpha * conv[i] + beta * old[i];
    return r;
  };
  // Forward into a y whose rows are padded from 9 to 12 elements.
  Tensor y_padded;
  ASSERT_EQ(
      miopenSet4dTensorDescriptorEx(y_padded, miopenFloat, 2, 6, 7, 9, 6 * 7 * 12, 7 * 12, 12, 1),
      miopenStatusSuccess);
  HostTensor y = HostTensor::from_descriptor(y_padded);
  fill_random(y, rng);
  const std::vector<uint8_t> before = y.bytes;
  const auto y_old = ref::to_logical(y.view());
  size_t ws_size = 0;
  ASSERT_EQ(
      miopenConvolutionForwardGetWorkSpaceSize(p.handle, p.w, p.x, p.conv, y_padded, &ws_size),
      miopenStatusSuccess);
  auto ws = workspace(ws_size);
  miopenConvAlgoPerf_t perf[2];
  int found = 0;
  HostTensor scratch = HostTensor::from_descriptor(y_padded);
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(p.handle, p.x, p.hx.data(), p.w, p.hw.data(),
                                                  p.conv, y_padded, scratch.data(), 2, &found, perf,
                                                  ws.data(), ws.size(), false),
            miopenStatusSuccess);
  ASSERT_EQ(miopenConvolutionForward(p.handle, &alpha, p.x, p.hx.data(), p.w, p.hw.data(), p.conv,
                                     perf[0].fwd_algo, &beta, y_padded, y.data(), ws.data(),
                                     perf[0].memory),
            miopenStatusSuccess);
  const auto y_conv = ref::conv_forward(p.hx.view(), p.hw.view(), p.params, y.lens);
  EXPECT_LE(ref::relative_rms(blended(y_conv, y_old), ref::to_logical(y.view())), 1.5e-6);
  // Every row's padding is unchanged (the last row's padding lies past the allocation).
  ASSERT_EQ(y.bytes.size(), (2 * 6 * 7 - 1) * 48u + 9 * 4);
  for (size_t row = 0; row + 1 < 2 * 6 * 7; ++row)
    for (size_t b = 9 * 4; b < 12 * 4; ++b)
      ASSERT_EQ(y.bytes[row * 48 + b], before[row * 48 + b]) << row;

  // Backward data and weights.
  HostTensor dx = HostTensor::from_descriptor(p.x), dw = HostTensor::from_descriptor(p.w);
  fill_random(dx, rng);
  fill_random(dw, rng);
  const auto dx_old = ref::to_logical(dx.view()), dw_old = ref::to_logical(dw.view());
  ASSERT_EQ(
      miopenConvolutionBackwardDataGetWorkSpaceSize(p.handle, p.y, p.w, p.conv, p.x, &ws_size),
      miopenStatusSuccess);
  ws = workspace(ws_size);
  HostTensor dx_scratch = HostTensor::from_descriptor(p.x);
  ASSERT_EQ(miopenFindConvolutionBackwardDataAlgorithm(p.handle, p.y, p.hy.data(), p.w, p.hw.data(),
                                                       p.conv, p.x, dx_scratch.data(), 2, &found,
                                                       perf, ws.data(), ws.size(), false),
            miopenStatusSuccess);
  ASSERT_EQ(miopenConvolutionBackwardData(p.handle, &alpha, p.y, p.hy.data(), p.w, p.hw.data(),
                                          p.conv, perf[0].bwd_data_algo, &beta, p.x, dx.data(),
                                          ws.data(), perf[0].memory),
            miopenStatusSuccess);
  const auto dx_conv = ref::conv_backward_data(p.hy.view(), p.hw.view(), p.params, dx.lens);
  EXPECT_LE(ref::relative_rms(blended(dx_conv, dx_old), ref::to_logical(dx.view())), 1.5e-6);
  ASSERT_EQ(
      miopenConvolutionBackwardWeightsGetWorkSpaceSize(p.handle, p.y, p.x, p.conv, p.w, &ws_size),
      miopenStatusSuccess);
  ws = workspace(ws_size);
  HostTensor dw_scratch = HostTensor::from_descriptor(p.w);
  ASSERT_EQ(miopenFindConvolutionBackwardWeightsAlgorithm(
                p.handle, p.y, p.hy.data(), p.x, p.hx.data(), p.conv, p.w, dw_scratch.data(), 2,
                &found, perf, ws.data(), ws.size(), false),
            miopenStatusSuccess);
  ASSERT_EQ(miopenConvolutionBackwardWeights(p.handle, &alpha, p.y, p.hy.data(), p.x, p.hx.data(),
                                             p.conv, perf[0].bwd_weights_algo, &beta, p.w,
                                             dw.data(), ws.data(), perf[0].memory),
            miopenStatusSuccess);
  const auto dw_conv = ref::conv_backward_weights(p.hx.view(), p.hy.view(), p.params, dw.lens);
  EXPECT_LE(ref::relative_rms(blended(dw_conv, dw_old), ref::to_logical(dw.view())), 3e-6);
}

TEST(ConvBiasApi, ForwardAndBackwardWithScalingAndLayouts) {
  Handle h;
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  for (const auto layout : {miopenTensorNCHW, miopenTensorNHWC}) {
    Tensor y, b(miopenFloat, {1, 5, 1, 1});
    const int lens[] = {3, 5, 4, 6};
    ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(y, miopenFloat, layout, lens, 4),
              miopenStatusSuccess);
    HostTensor hy = HostTensor::from_descriptor(y), hb = HostTensor::from_descriptor(b);
    fill_random(hy, rng);
    fill_random(hb, rng);
    const auto y0 = ref::to_logical(hy.view());
    const float alpha = 0.5f, beta = 2.0f;
    ASSERT_EQ(miopenConvolutionForwardBias(h, &alpha, b, hb.data(), &beta, y, hy.data()),
              miopenStatusSuccess);
    // MIOpen's definition: y = alpha * (y + b) + beta * y.
    const auto y1 = ref::to_logical(hy.view());
    for (size_t i = 0; i < y0.size(); ++i) {
      const double bias = hb.get((i / 24) % 5);
      EXPECT_NEAR(y1[i], alpha * (y0[i] + bias) + beta * y0[i], 1e-5) << i;
    }
    HostTensor db = HostTensor::from_descriptor(b);
    fill_random(db, rng);
    const double old0 = db.get(0);
    ASSERT_EQ(miopenConvolutionBackwardBias(h, &alpha, y, hy.data(), &beta, b, db.data()),
              miopenStatusSuccess);
    const auto sums = ref::bias_backward(hy.view());
    EXPECT_NEAR(db.get(0), alpha * sums[0] + beta * old0, 1e-4);
    const float one = 1.0f, zero = 0.0f;
    db.poison();  // beta = 0 must ignore the old (NaN) contents
    ASSERT_EQ(miopenConvolutionBackwardBias(h, &one, y, hy.data(), &zero, b, db.data()),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(sums, ref::to_logical(db.view())), 1.5e-6);
  }
}

TEST(ConvBiasApi, BadInputs) {
  Handle h;
  Tensor y(miopenFloat, {2, 5, 3, 3}), b_wrong(miopenFloat, {1, 4, 1, 1}),
      b_half(miopenHalf, {1, 5, 1, 1}), b_3d(miopenFloat, {1, 5, 1});
  std::vector<float> buf(200);
  const float one = 1.0f, zero = 0.0f;
  expect_failure(
      miopenStatusBadParm, "miopenConvolutionForwardBias", "must have lengths [1, 5", [&] {
        return miopenConvolutionForwardBias(h, &one, b_wrong, buf.data(), &zero, y, buf.data());
      });
  expect_failure(miopenStatusBadParm, "miopenConvolutionForwardBias", "different data types", [&] {
    return miopenConvolutionForwardBias(h, &one, b_half, buf.data(), &zero, y, buf.data());
  });
  expect_failure(miopenStatusBadParm, "miopenConvolutionBackwardBias", "dimensions", [&] {
    return miopenConvolutionBackwardBias(h, &one, y, buf.data(), &zero, b_3d, buf.data());
  });
  expect_failure(miopenStatusBadParm, "miopenConvolutionBackwardBias", "Buffers cannot be NULL",
                 [&] {
                   Tensor b(miopenFloat, {1, 5, 1, 1});
                   return miopenConvolutionBackwardBias(h, &one, y, nullptr, &zero, b, buf.data());
                 });
  expect_failure(
      miopenStatusBadParm, "miopenConvolutionForwardBias", "alpha is a null pointer", [&] {
        Tensor b(miopenFloat, {1, 5, 1, 1});
        return miopenConvolutionForwardBias(h, nullptr, b, buf.data(), &zero, y, buf.data());
      });
}

}  // namespace
}  // namespace anydnn::test
