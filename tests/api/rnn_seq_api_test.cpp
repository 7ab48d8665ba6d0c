// The RNN sequence API against the legacy per-step API on the same data: sequences in any order
// and in each padded layout must give the legacy results of the length-sorted batch, padding
// filled with the marker, and states / gradients back in the caller's sequence order.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "core/float_types.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

class RnnSeq : public ::testing::TestWithParam<miopenRNNBaseLayout_t> {};

TEST_P(RnnSeq, MatchesTheLegacyApiOnTheSortedBatch) {
  const miopenRNNBaseLayout_t layout = GetParam();
  const int H = 5, I = 4, L = 2, D = 2, maxT = 5, B = 4;
  // Packed layouts need sorted lengths; padded ones take any order.
  const std::vector<int> lens = layout == miopenRNNDataSeqMajorNotPadded
                                    ? std::vector<int>{5, 5, 3, 2}
                                    : std::vector<int>{2, 5, 3, 5};
  std::vector<int> order(B);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lens[a] > lens[b]; });
  std::vector<size_t> batch;
  for (int t = 0; t < maxT; ++t)
    batch.push_back(
        static_cast<size_t>(std::count_if(lens.begin(), lens.end(), [&](int l) { return l > t; })));
  std::vector<size_t> start(maxT, 0);
  for (int t = 1; t < maxT; ++t)
    start[t] = start[t - 1] + batch[t - 1];
  const size_t rows = start[maxT - 1] + batch[maxT - 1];
  auto offset = [&](int b, int t, int vec) -> size_t {
    if (layout == miopenRNNDataSeqMajorPadded) return (static_cast<size_t>(t) * B + b) * vec;
    if (layout == miopenRNNDataBatchMajorPadded) return (static_cast<size_t>(b) * maxT + t) * vec;
    return (start[t] + b) * vec;  // sorted already
  };
  const size_t space_x = layout == miopenRNNDataSeqMajorNotPadded ? rows * I : size_t{B} * maxT * I;
  const size_t space_y = space_x / I * D * H;

  Handle hd;
  Rnn r;
  ASSERT_EQ(miopenSetRNNDescriptor(r, H, L, miopenRNNlinear, miopenRNNbidirection, miopenLSTM,
                                   miopenRNNwithBias, miopenRNNdefault, miopenFloat),
            miopenStatusSuccess);
  std::mt19937 rng(fresh_seed());
  auto rnd = [&](size_t n) { return random_floats(rng, n); };
  // Legacy descriptors over the sorted batch.
  std::vector<Tensor> xs, ys;
  xs.reserve(maxT);
  ys.reserve(maxT);
  for (size_t b : batch) {
    xs.emplace_back(miopenFloat, std::vector<int>{static_cast<int>(b), I});
    ys.emplace_back(miopenFloat, std::vector<int>{static_cast<int>(b), D * H});
  }
  std::vector<miopenTensorDescriptor_t> xd, yd;
  for (int t = 0; t < maxT; ++t) {
    xd.push_back(xs[t]);
    yd.push_back(ys[t]);
  }
  Tensor hdesc(miopenFloat, {L * D, B, H}), w;
  ASSERT_EQ(miopenGetRNNParamsDescriptor(hd, r, xd[0], w, miopenFloat), miopenStatusSuccess);
  size_t wb = 0, ws = 0, rs = 0;
  miopenGetTensorNumBytes(w, &wb);
  miopenGetRNNWorkspaceSize(hd, r, maxT, xd.data(), &ws);
  miopenGetRNNTrainingReserveSize(hd, r, maxT, xd.data(), &rs);
  const auto wv = rnd(wb / 4), xseq = rnd(space_x), dyseq = rnd(space_y);
  const size_t state = size_t{L} * D * B * H;
  const auto hx = rnd(state), cx = rnd(state), dhy = rnd(state), dcy = rnd(state);
  // Legacy inputs: sorted rows and states.
  std::vector<float> x(rows * I), dy(rows * D * H);
  auto sort_state = [&](const std::vector<float>& s) {
    std::vector<float> o(s.size());
    for (int st = 0; st < L * D; ++st)
      for (int i = 0; i < B; ++i)
        std::copy_n(&s[(st * B + order[i]) * H], H, &o[(st * B + i) * H]);
    return o;
  };
  for (int t = 0; t < maxT; ++t)
    for (size_t i = 0; i < batch[t]; ++i) {
      std::copy_n(&xseq[offset(order[i], t, I)], I, &x[(start[t] + i) * I]);
      std::copy_n(&dyseq[offset(order[i], t, D * H)], D * H, &dy[(start[t] + i) * D * H]);
    }
  const auto hxs = sort_state(hx), cxs = sort_state(cx), dhys = sort_state(dhy),
             dcys = sort_state(dcy);
  std::vector<float> y(rows * D * H), hy(state), cy(state), dx(rows * I), dhx(state), dcx(state),
      dw(wv.size());
  std::vector<uint8_t> wsb(ws), rsb(rs);
  ASSERT_EQ(miopenRNNForwardTraining(hd, r, maxT, xd.data(), x.data(), hdesc, hxs.data(), hdesc,
                                     cxs.data(), w, wv.data(), yd.data(), y.data(), hdesc,
                                     hy.data(), hdesc, cy.data(), wsb.data(), ws, rsb.data(), rs),
            miopenStatusSuccess);
  ASSERT_EQ(miopenRNNBackwardData(hd, r, maxT, yd.data(), y.data(), yd.data(), dy.data(), hdesc,
                                  dhys.data(), hdesc, dcys.data(), w, wv.data(), hdesc, hxs.data(),
                                  hdesc, cxs.data(), xd.data(), dx.data(), hdesc, dhx.data(), hdesc,
                                  dcx.data(), wsb.data(), ws, rsb.data(), rs),
            miopenStatusSuccess);
  ASSERT_EQ(miopenRNNBackwardWeights(hd, r, maxT, xd.data(), x.data(), hdesc, hxs.data(), yd.data(),
                                     y.data(), w, dw.data(), wsb.data(), ws, rsb.data(), rs),
            miopenStatusSuccess);

  // The same through the sequence API.
  Seq sx, sy;
  const float marker = -7.0f;
  ASSERT_EQ(miopenSetRNNDataSeqTensorDescriptor(sx, miopenFloat, layout, maxT, B, I, lens.data(),
                                                const_cast<float*>(&marker)),
            miopenStatus_t::miopenStatusSuccess);
  ASSERT_EQ(miopenSetRNNDataSeqTensorDescriptor(sy, miopenFloat, layout, maxT, B, D * H,
                                                lens.data(), const_cast<float*>(&marker)),
            miopenStatusSuccess);
  size_t ws2 = 0, rs2 = 0;
  ASSERT_EQ(miopenGetRNNTempSpaceSizes(hd, r, sx, miopenRNNTraining, &ws2, &rs2),
            miopenStatusSuccess);
  std::vector<uint8_t> ws2b(ws2), rs2b(rs2);
  std::vector<float> y2(space_y, NAN), hy2(state, NAN), cy2(state, NAN), dx2(space_x, NAN),
      dhx2(state, NAN), dcx2(state, NAN), dw2(wv.size(), NAN);
  ASSERT_EQ(miopenRNNForward(hd, r, miopenRNNTraining, sx, xseq.data(), hdesc, hx.data(),
                             hy2.data(), hdesc, cx.data(), cy2.data(), sy, y2.data(), wv.data(), wb,
                             ws2b.data(), ws2, rs2b.data(), rs2),
            miopenStatusSuccess);
  ASSERT_EQ(
      miopenRNNBackwardSeqData(hd, r, sy, y2.data(), dyseq.data(), hdesc, hx.data(), dhy.data(),
                               dhx2.data(), hdesc, cx.data(), dcy.data(), dcx2.data(), sx,
                               dx2.data(), wv.data(), wb, ws2b.data(), ws2, rs2b.data(), rs2),
      miopenStatusSuccess);
  ASSERT_EQ(
      miopenRNNBackwardWeightsSeqTensor(hd, r, sx, xseq.data(), hdesc, hx.data(), sy, y2.data(),
                                        dw2.data(), wb, ws2b.data(), ws2, rs2b.data(), rs2),
      miopenStatusSuccess);
  for (int b = 0; b < B; ++b) {
    const int rank = static_cast<int>(std::find(order.begin(), order.end(), b) - order.begin());
    for (int t = 0; t < maxT; ++t)
      for (int j = 0; j < D * H; ++j) {
        if (t < lens[b]) {
          EXPECT_NEAR(y2[offset(b, t, D * H) + j], y[(start[t] + rank) * D * H + j], 1e-6);
        } else if (layout != miopenRNNDataSeqMajorNotPadded) {
          EXPECT_EQ(y2[offset(b, t, D * H) + j], marker) << "padding";
        }
      }
    for (int t = 0; t < lens[b]; ++t)
      for (int j = 0; j < I; ++j)
        EXPECT_NEAR(dx2[offset(b, t, I) + j], dx[(start[t] + rank) * I + j], 1e-6);
    for (int st = 0; st < L * D; ++st)
      for (int j = 0; j < H; ++j) {
        EXPECT_NEAR(hy2[(st * B + b) * H + j], hy[(st * B + rank) * H + j], 1e-6);
        EXPECT_NEAR(cy2[(st * B + b) * H + j], cy[(st * B + rank) * H + j], 1e-6);
        EXPECT_NEAR(dhx2[(st * B + b) * H + j], dhx[(st * B + rank) * H + j], 1e-6);
        EXPECT_NEAR(dcx2[(st * B + b) * H + j], dcx[(st * B + rank) * H + j], 1e-6);
      }
  }
  for (size_t i = 0; i < dw.size(); ++i)
    ASSERT_NEAR(dw2[i], dw[i], 1e-5 * std::max(1.0f, std::abs(dw[i]))) << i;
}

INSTANTIATE_TEST_SUITE_P(Layouts, RnnSeq,
                         ::testing::Values(miopenRNNDataSeqMajorNotPadded,
                                           miopenRNNDataSeqMajorPadded,
                                           miopenRNNDataBatchMajorPadded));

TEST(RnnSeqApi, DescriptorRulesAndRoundTrip) {
  Seq s;
  const int lens[3] = {2, 4, 1};
  expect_failure(miopenStatusBadParm, "miopenSetRNNDataSeqTensorDescriptor", "sorted by decreasing",
                 [&] {
                   return miopenSetRNNDataSeqTensorDescriptor(
                       s, miopenFloat, miopenRNNDataSeqMajorNotPadded, 4, 3, 8, lens, nullptr);
                 });
  expect_failure(miopenStatusBadParm, "miopenSetRNNDataSeqTensorDescriptor", "outside 0..3", [&] {
    return miopenSetRNNDataSeqTensorDescriptor(s, miopenFloat, miopenRNNDataBatchMajorPadded, 3, 3,
                                               8, lens, nullptr);
  });
  ASSERT_EQ(miopenSetRNNDataSeqTensorDescriptor(s, miopenFloat, miopenRNNDataBatchMajorPadded, 4, 3,
                                                8, lens, nullptr),
            miopenStatusSuccess);
  miopenDataType_t t;
  miopenRNNBaseLayout_t l;
  int mx = 0, b = 0, v = 0, back[3] = {0, 0, 0};
  ASSERT_EQ(miopenGetRNNDataSeqTensorDescriptor(s, &t, &l, &mx, &b, &v, 3, back, nullptr),
            miopenStatusSuccess);
  EXPECT_EQ(l, miopenRNNDataBatchMajorPadded);
  EXPECT_EQ(mx, 4);
  EXPECT_EQ(b, 3);
  EXPECT_EQ(v, 8);
  EXPECT_EQ(back[1], 4);
}

// fp16 sequence tensors (padded, unsorted lengths): the same calls as in fp32 on the same
// half-rounded values, every output within the outputs' fp16 rounding; padding gets the marker.
TEST(RnnSeqApi, HalfMatchesFloatOnRoundedValues) {
  const int H = 6, I = 5, L = 2, D = 2, maxT = 4, B = 3;
  const std::vector<int> lens = {2, 4, 3};
  const auto layout = miopenRNNDataBatchMajorPadded;
  Handle hd;
  std::mt19937 rng(fresh_seed());
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  const size_t nx = size_t{B} * maxT * I, ny = size_t{B} * maxT * D * H,
               state = size_t{L} * D * B * H;
  // Values exactly representable in half, used by both runs.
  auto rnd = [&](size_t n) {
    std::vector<float> v(n);
    for (auto& e : v)
      e = half_to_float(float_to_half(u(rng)));
    return v;
  };
  auto to_half = [](const std::vector<float>& v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      h[i] = float_to_half(v[i]);
    return h;
  };
  const auto x = rnd(nx), dy = rnd(ny), hx = rnd(state), cx = rnd(state), dhy = rnd(state),
             dcy = rnd(state);
  std::vector<float> wv;
  struct Out {
    std::vector<double> y, hy, cy, dx, dhx, dcx, dw;
  };
  const float marker = -3.0f;
  const uint16_t marker_half = float_to_half(marker);  // the marker is a value of the type
  auto run = [&](miopenDataType_t type) {
    const bool half = type == miopenHalf;
    const void* mark = half ? static_cast<const void*>(&marker_half) : &marker;
    Rnn r;
    EXPECT_EQ(miopenSetRNNDescriptor(r, H, L, miopenRNNlinear, miopenRNNbidirection, miopenLSTM,
                                     miopenRNNwithBias, miopenRNNdefault, type),
              miopenStatusSuccess);
    Seq sx, sy;
    EXPECT_EQ(miopenSetRNNDataSeqTensorDescriptor(sx, type, layout, maxT, B, I, lens.data(),
                                                  const_cast<void*>(mark)),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetRNNDataSeqTensorDescriptor(sy, type, layout, maxT, B, D * H, lens.data(),
                                                  const_cast<void*>(mark)),
              miopenStatusSuccess);
    if (half) {  // read back as a half value
      uint16_t back = 0;
      miopenDataType_t t;
      miopenRNNBaseLayout_t l;
      int m = 0, b = 0, v = 0;
      EXPECT_EQ(miopenGetRNNDataSeqTensorDescriptor(sx, &t, &l, &m, &b, &v, 0, nullptr, &back),
                miopenStatusSuccess);
      EXPECT_EQ(back, marker_half);
    }
    Tensor hdesc(type, {L * D, B, H}), xt(type, {B, I}), w;
    EXPECT_EQ(miopenGetRNNParamsDescriptor(hd, r, xt, w, type), miopenStatusSuccess);
    size_t wb = 0, ws = 0, rs = 0;
    miopenGetTensorNumBytes(w, &wb);
    EXPECT_EQ(miopenGetRNNTempSpaceSizes(hd, r, sx, miopenRNNTraining, &ws, &rs),
              miopenStatusSuccess);
    const size_t nw = wb / (half ? 2 : 4);
    if (wv.empty()) wv = rnd(nw);
    // Storage of either type: bytes, filled from fp32 values or poisoned.
    auto buf = [&](const std::vector<float>& v) {
      std::vector<uint8_t> b(v.size() * (half ? 2 : 4));
      if (half) {
        const auto h = to_half(v);
        std::memcpy(b.data(), h.data(), b.size());
      } else {
        std::memcpy(b.data(), v.data(), b.size());
      }
      return b;
    };
    auto poisoned = [&](size_t n) { return buf(std::vector<float>(n, NAN)); };
    auto values = [&](const std::vector<uint8_t>& b) {
      std::vector<double> v(b.size() / (half ? 2 : 4));
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = half ? half_to_float(reinterpret_cast<const uint16_t*>(b.data())[i])
                    : reinterpret_cast<const float*>(b.data())[i];
      return v;
    };
    auto bx = buf(x), bdy = buf(dy), bhx = buf(hx), bcx = buf(cx), bdhy = buf(dhy), bdcy = buf(dcy),
         bw = buf(wv);
    auto by = poisoned(ny), bhy = poisoned(state), bcy = poisoned(state), bdx = poisoned(nx),
         bdhx = poisoned(state), bdcx = poisoned(state), bdw = poisoned(nw);
    std::vector<uint8_t> wsb(ws), rsb(rs);
    EXPECT_EQ(miopenRNNForward(hd, r, miopenRNNTraining, sx, bx.data(), hdesc, bhx.data(),
                               bhy.data(), hdesc, bcx.data(), bcy.data(), sy, by.data(), bw.data(),
                               wb, wsb.data(), ws, rsb.data(), rs),
              miopenStatusSuccess);
    EXPECT_EQ(
        miopenRNNBackwardSeqData(hd, r, sy, by.data(), bdy.data(), hdesc, bhx.data(), bdhy.data(),
                                 bdhx.data(), hdesc, bcx.data(), bdcy.data(), bdcx.data(), sx,
                                 bdx.data(), bw.data(), wb, wsb.data(), ws, rsb.data(), rs),
        miopenStatusSuccess);
    EXPECT_EQ(
        miopenRNNBackwardWeightsSeqTensor(hd, r, sx, bx.data(), hdesc, bhx.data(), sy, by.data(),
                                          bdw.data(), wb, wsb.data(), ws, rsb.data(), rs),
        miopenStatusSuccess);
    return Out{values(by),   values(bhy),  values(bcy), values(bdx),
               values(bdhx), values(bdcx), values(bdw)};
  };
  const Out f = run(miopenFloat), h = run(miopenHalf);
  EXPECT_LT(ref::relative_rms(f.y, h.y), 3e-3) << "y (padding included: marker in both)";
  EXPECT_LT(ref::relative_rms(f.hy, h.hy), 3e-3) << "hy";
  EXPECT_LT(ref::relative_rms(f.cy, h.cy), 3e-3) << "cy";
  EXPECT_LT(ref::relative_rms(f.dx, h.dx), 3e-3) << "dx";
  EXPECT_LT(ref::relative_rms(f.dhx, h.dhx), 3e-3) << "dhx";
  EXPECT_LT(ref::relative_rms(f.dcx, h.dcx), 3e-3) << "dcx";
  EXPECT_LT(ref::relative_rms(f.dw, h.dw), 3e-3) << "dw";
  // Sequence 0 has 2 steps: its steps 2 and 3 are padding, filled with the marker.
  EXPECT_EQ(h.y[(0 * maxT + 3) * D * H], marker);
}

}  // namespace
}  // namespace anydnn::test
