// RNN through the public C API: descriptors, MIOpen's packed weight layout (sizes, descriptors,
// per-layer set / get / offsets) and the forward passes against the independent double
// reference over every mode, direction, input mode, bias setting, 1 to 3 layers and packed
// variable batches, with and without initial / final states.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "core/float_types.hpp"
#include "rnn_reference.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

TEST(RnnApi, DescriptorRoundTripsAndRejectsBadValues) {
  Rnn r;
  ASSERT_EQ(miopenSetRNNDescriptor(r, 16, 2, miopenRNNskip, miopenRNNbidirection, miopenGRU,
                                   miopenRNNwithBias, miopenRNNdefault, miopenFloat),
            miopenStatusSuccess);
  miopenRNNMode_t m;
  miopenRNNAlgo_t a;
  miopenRNNInputMode_t in;
  miopenRNNDirectionMode_t dir;
  miopenRNNBiasMode_t b;
  int h = 0, l = 0;
  ASSERT_EQ(miopenGetRNNDescriptor(r, &m, &a, &in, &dir, &b, &h, &l), miopenStatusSuccess);
  EXPECT_EQ(m, miopenGRU);
  EXPECT_EQ(in, miopenRNNskip);
  EXPECT_EQ(dir, miopenRNNbidirection);
  EXPECT_EQ(b, miopenRNNwithBias);
  EXPECT_EQ(h, 16);
  EXPECT_EQ(l, 2);
  expect_failure(miopenStatusBadParm, "miopenSetRNNDescriptor", "must be positive", [&] {
    return miopenSetRNNDescriptor(r, 0, 2, miopenRNNlinear, miopenRNNunidirection, miopenLSTM,
                                  miopenRNNwithBias, miopenRNNdefault, miopenFloat);
  });
  expect_failure(miopenStatusBadParm, "miopenSetRNNDescriptor", "RNN mode", [&] {
    return miopenSetRNNDescriptor(r, 4, 1, miopenRNNlinear, miopenRNNunidirection,
                                  static_cast<miopenRNNMode_t>(3 + 4), miopenRNNwithBias,
                                  miopenRNNdefault, miopenFloat);
  });
  expect_failure(miopenStatusBadParm, "miopenSetRNNDescriptor", "float or half", [&] {
    return miopenSetRNNDescriptor(r, 4, 1, miopenRNNlinear, miopenRNNunidirection, miopenLSTM,
                                  miopenRNNwithBias, miopenRNNdefault, miopenInt8);
  });
  Rnn unset;
  expect_failure(miopenStatusBadParm, "miopenGetRNNDescriptor", "has not been set",
                 [&] { return miopenGetRNNDescriptor(unset, &m, &a, &in, &dir, &b, &h, &l); });
}

TEST(RnnApi, ParamsSizeDescriptorAndSkipModeRules) {
  Handle hd;
  Tensor x(miopenFloat, {3, 10});
  for (int mode = 0; mode < 4; ++mode)
    for (int bi = 0; bi < 2; ++bi)
      for (int bias = 0; bias < 2; ++bias)
        for (int layers : {1, 3}) {
          Rnn r;
          ASSERT_EQ(miopenSetRNNDescriptor(
                        r, 8, layers, miopenRNNlinear, static_cast<miopenRNNDirectionMode_t>(bi),
                        static_cast<miopenRNNMode_t>(mode), static_cast<miopenRNNBiasMode_t>(bias),
                        miopenRNNdefault, miopenFloat),
                    miopenStatusSuccess);
          ref::RnnConfig c{mode, 8, layers, bi == 1, false, bias == 1};
          size_t bytes = 0;
          ASSERT_EQ(miopenGetRNNParamsSize(hd, r, x, &bytes, miopenFloat), miopenStatusSuccess);
          EXPECT_EQ(bytes, ref::rnn_weight_count(c, 10) * 4);
          Tensor w;
          ASSERT_EQ(miopenGetRNNParamsDescriptor(hd, r, x, w, miopenFloat), miopenStatusSuccess);
          int n = 0;
          miopenGetTensorDescriptorSize(w, &n);
          ASSERT_EQ(n, 2);
          size_t wbytes = 0;
          miopenGetTensorNumBytes(w, &wbytes);
          EXPECT_EQ(wbytes, bytes);
        }
  Rnn r;
  ASSERT_EQ(miopenSetRNNDescriptor(r, 10, 2, miopenRNNskip, miopenRNNbidirection, miopenLSTM,
                                   miopenRNNwithBias, miopenRNNdefault, miopenFloat),
            miopenStatusSuccess);
  Tensor p;
  size_t off = 0;
  // Input-side matrices of the first layer (both directions) do not exist in skip mode.
  for (int layer : {0, 1})
    expect_failure(miopenStatusBadParm, "miopenGetRNNLayerParamOffset", "input skip mode",
                   [&] { return miopenGetRNNLayerParamOffset(r, layer, x, 2, p, &off); });
  EXPECT_EQ(miopenGetRNNLayerParamOffset(r, 0, x, 4, p, &off), miopenStatusSuccess);
  EXPECT_EQ(off, 0u) << "the first hidden matrix starts the packed weights in skip mode";
  EXPECT_EQ(miopenGetRNNLayerParamOffset(r, 2, x, 0, p, &off), miopenStatusSuccess);
  EXPECT_EQ(off, 2u * 4 * 10 * 10) << "layer 1 starts after layer 0's 2 x 4 hidden matrices";
  expect_failure(miopenStatusBadParm, "miopenGetRNNLayerParamOffset", "layer 4",
                 [&] { return miopenGetRNNLayerParamOffset(r, 4, x, 0, p, &off); });
}

struct Case {
  int mode;
  bool bi, skip, bias;
  int layers;
  std::vector<size_t> batch;
  bool states;
};

std::string name(const Case& c) {
  const char* modes[] = {"relu", "tanh", "lstm", "gru"};
  std::string n = std::string(modes[c.mode]) + (c.bi ? "_bi" : "_uni") + (c.skip ? "_skip" : "") +
                  (c.bias ? "_bias" : "") + "_l" + std::to_string(c.layers) + "_b";
  for (size_t b : c.batch)
    n += std::to_string(b);
  return n + (c.states ? "_states" : "_nostates");
}

// One Case's RNN (hidden size H, input size I) through the API: descriptors for every step,
// the state and weight descriptors, and the workspace / reserve sizes.
struct CaseRnn {
  Handle hd;
  Rnn r;
  int T = 0, B0 = 0, D = 1;
  size_t rows = 0, wbytes = 0, ws = 0, rs = 0;
  std::vector<Tensor> xs, ys;
  std::vector<miopenTensorDescriptor_t> xd, yd;
  Tensor hdesc, w;
  void init(const Case& c, int H, int I, miopenDataType_t type = miopenFloat) {
    D = c.bi ? 2 : 1;
    ASSERT_EQ(miopenSetRNNDescriptor(r, H, c.layers, c.skip ? miopenRNNskip : miopenRNNlinear,
                                     c.bi ? miopenRNNbidirection : miopenRNNunidirection,
                                     static_cast<miopenRNNMode_t>(c.mode),
                                     c.bias ? miopenRNNwithBias : miopenRNNNoBias, miopenRNNdefault,
                                     type),
              miopenStatusSuccess);
    T = static_cast<int>(c.batch.size());
    xs.reserve(T);
    ys.reserve(T);
    for (size_t b : c.batch) {
      xs.emplace_back(type, std::vector<int>{static_cast<int>(b), I});
      ys.emplace_back(type, std::vector<int>{static_cast<int>(b), D * H});
      xd.push_back(xs.back());
      yd.push_back(ys.back());
      rows += b;
    }
    B0 = static_cast<int>(c.batch[0]);
    const std::vector<int> state = {c.layers * D, B0, H};
    ASSERT_EQ(miopenSetTensorDescriptor(hdesc, type, 3, state.data(), nullptr),
              miopenStatusSuccess);
    ASSERT_EQ(miopenGetRNNParamsDescriptor(hd, r, xd[0], w, type), miopenStatusSuccess);
    ASSERT_EQ(miopenGetTensorNumBytes(w, &wbytes), miopenStatusSuccess);
    ASSERT_EQ(miopenGetRNNWorkspaceSize(hd, r, T, xd.data(), &ws), miopenStatusSuccess);
    ASSERT_EQ(miopenGetRNNTrainingReserveSize(hd, r, T, xd.data(), &rs), miopenStatusSuccess);
  }
};

class RnnForward : public ::testing::TestWithParam<Case> {};

TEST_P(RnnForward, MatchesReference) {
  const Case& c = GetParam();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  const int H = 6, I = c.skip ? H : 5;
  CaseRnn k;
  ASSERT_NO_FATAL_FAILURE(k.init(c, H, I));
  const Handle& hd = k.hd;
  const Rnn& r = k.r;
  const Tensor &hdesc = k.hdesc, &w = k.w;
  const auto &xd = k.xd, &yd = k.yd;
  const int T = k.T, B0 = k.B0, D = k.D;
  const size_t rows = k.rows, wbytes = k.wbytes, ws = k.ws, rs = k.rs;
  auto random = [&](size_t n) { return random_floats(rng, n); };
  const auto x = random(rows * I);
  const size_t state = static_cast<size_t>(c.layers) * D * B0 * H;
  const auto hx = random(state), cx = random(state);
  // Weights set one matrix and bias at a time through the API: checks the layout end to end
  // against the reference's own walk of it.
  std::vector<float> wv(wbytes / 4, 1e30f);
  const int G = c.mode == 2 ? 4 : c.mode == 3 ? 3 : 1;
  for (int layer = 0; layer < c.layers * D; ++layer)
    for (int id = 0; id < 2 * G; ++id) {
      Tensor pd;
      if (!(c.skip && layer < D && id < G)) {
        size_t bytes = 0;
        ASSERT_EQ(miopenGetRNNLayerParamSize(hd, r, layer, xd[0], id, &bytes), miopenStatusSuccess);
        auto m = random(bytes / 4);
        ASSERT_EQ(miopenGetRNNLayerParam(hd, r, layer, xd[0], w, wv.data(), id, pd, nullptr),
                  miopenStatusSuccess);
        ASSERT_EQ(miopenSetRNNLayerParam(hd, r, layer, xd[0], w, wv.data(), id, pd, m.data()),
                  miopenStatusSuccess);
        std::vector<float> back(m.size());
        ASSERT_EQ(miopenGetRNNLayerParam(hd, r, layer, xd[0], w, wv.data(), id, pd, back.data()),
                  miopenStatusSuccess);
        EXPECT_EQ(back, m);
      }
      if (c.bias) {
        Tensor bd;
        auto bv = random(H);
        ASSERT_EQ(miopenGetRNNLayerBias(hd, r, layer, xd[0], w, wv.data(), id, bd, nullptr),
                  miopenStatusSuccess);
        ASSERT_EQ(miopenSetRNNLayerBias(hd, r, layer, xd[0], w, wv.data(), id, bd, bv.data()),
                  miopenStatusSuccess);
      }
    }
  for (float v : wv)
    ASSERT_NE(v, 1e30f) << "a weight the per-layer API never reached";

  ref::RnnConfig rc{c.mode, H, c.layers, c.bi, c.skip, c.bias};
  const auto want = ref::rnn_forward(
      rc, I, c.batch, {x.begin(), x.end()},
      c.states ? std::vector<double>(hx.begin(), hx.end()) : std::vector<double>{},
      c.states && c.mode == 2 ? std::vector<double>(cx.begin(), cx.end()) : std::vector<double>{},
      {wv.begin(), wv.end()});
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "inference");
    std::vector<float> y(rows * D * H, NAN), hy(state, NAN), cy(state, NAN);
    std::vector<uint8_t> wsb(ws), rsb(rs);
    const void* hxp = c.states ? hx.data() : nullptr;
    const void* cxp = c.states ? cx.data() : nullptr;
    miopenStatus_t s;
    if (training)
      s = miopenRNNForwardTraining(hd, r, T, xd.data(), x.data(), hdesc, hxp, hdesc, cxp, w,
                                   wv.data(), yd.data(), y.data(), hdesc, hy.data(), hdesc,
                                   cy.data(), wsb.data(), ws, rsb.data(), rs);
    else
      s = miopenRNNForwardInference(hd, r, T, xd.data(), x.data(), hdesc, hxp, hdesc, cxp, w,
                                    wv.data(), yd.data(), y.data(), hdesc, hy.data(), hdesc,
                                    cy.data(), wsb.data(), ws);
    ASSERT_EQ(s, miopenStatusSuccess);
    EXPECT_LT(ref::relative_rms(want.y, {y.begin(), y.end()}), 1e-6) << "y";
    EXPECT_LT(ref::relative_rms(want.hy, {hy.begin(), hy.end()}), 1e-6) << "hy";
    if (c.mode == 2) EXPECT_LT(ref::relative_rms(want.cy, {cy.begin(), cy.end()}), 1e-6) << "cy";
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (int mode = 0; mode < 4; ++mode)
    for (bool bi : {false, true})
      for (bool skip : {false, true})
        for (bool bias : {false, true})
          v.push_back({mode, bi, skip, bias, 2, {4, 4, 3, 1}, bias});
  for (int mode = 0; mode < 4; ++mode) {
    v.push_back({mode, true, false, true, 3, {3, 2, 2, 2, 1}, true});
    v.push_back({mode, false, false, true, 1, {5}, false});
    v.push_back({mode, true, false, false, 1, {2, 2, 2}, true});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Modes, RnnForward, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return name(info.param); });

// Dropout between layers (_V2): the same seed gives the same training output, inference
// never drops, and a rate of 0 is the plain network.
TEST(RnnApi, DropoutBetweenLayersIsReproducibleAndTrainingOnly) {
  Handle hd;
  Dropout dd;
  size_t sbytes = 0;
  miopenDropoutGetStatesSize(hd, &sbytes);
  std::vector<uint8_t> states(sbytes);
  const int H = 8, I = 5, L = 2;
  const std::vector<size_t> batch = {3, 3, 2};
  std::vector<Tensor> xs, ys;
  xs.reserve(batch.size());  // Tensor owns a descriptor: no reallocation copies
  ys.reserve(batch.size());
  for (size_t b : batch) {
    xs.emplace_back(miopenFloat, std::vector<int>{static_cast<int>(b), I});
    ys.emplace_back(miopenFloat, std::vector<int>{static_cast<int>(b), H});
  }
  std::vector<miopenTensorDescriptor_t> xd = {xs[0], xs[1], xs[2]}, yd = {ys[0], ys[1], ys[2]};
  Tensor hdesc(miopenFloat, {L, 3, H});
  auto run = [&](float p, bool training) {
    Rnn r;
    EXPECT_EQ(miopenSetDropoutDescriptor(dd, hd, p, states.data(), states.size(), 123, false, false,
                                         MIOPEN_RNG_PSEUDO_XORWOW),
              miopenStatusSuccess);
    EXPECT_EQ(
        miopenSetRNNDescriptor_V2(r, H, L, dd, miopenRNNlinear, miopenRNNunidirection, miopenLSTM,
                                  miopenRNNwithBias, miopenRNNdefault, miopenFloat),
        miopenStatusSuccess);
    Tensor w;
    EXPECT_EQ(miopenGetRNNParamsDescriptor(hd, r, xd[0], w, miopenFloat), miopenStatusSuccess);
    size_t wb = 0, ws = 0, rs = 0;
    miopenGetTensorNumBytes(w, &wb);
    miopenGetRNNWorkspaceSize(hd, r, 3, xd.data(), &ws);
    miopenGetRNNTrainingReserveSize(hd, r, 3, xd.data(), &rs);
    std::mt19937 fixed(99);  // the same data in every run
    const std::vector<float> wv = random_floats(fixed, wb / 4), x = random_floats(fixed, 8 * I);
    std::vector<float> y(8 * H);
    std::vector<uint8_t> wsb(ws), rsb(rs);
    miopenStatus_t s =
        training ? miopenRNNForwardTraining(hd, r, 3, xd.data(), x.data(), hdesc, nullptr, hdesc,
                                            nullptr, w, wv.data(), yd.data(), y.data(), hdesc,
                                            nullptr, hdesc, nullptr, wsb.data(), ws, rsb.data(), rs)
                 : miopenRNNForwardInference(hd, r, 3, xd.data(), x.data(), hdesc, nullptr, hdesc,
                                             nullptr, w, wv.data(), yd.data(), y.data(), hdesc,
                                             nullptr, hdesc, nullptr, wsb.data(), ws);
    EXPECT_EQ(s, miopenStatusSuccess);
    const auto want = ref::rnn_forward({2, H, L, false, false, true}, I, batch,
                                       {x.begin(), x.end()}, {}, {}, {wv.begin(), wv.end()});
    return std::make_pair(y, ref::relative_rms(want.y, {y.begin(), y.end()}));
  };
  const auto a = run(0.5f, true), b = run(0.5f, true);
  EXPECT_EQ(a.first, b.first) << "same seed, same dropout masks";
  EXPECT_GT(a.second, 1e-3) << "dropout changed the training output";
  EXPECT_LT(run(0.5f, false).second, 1e-6) << "inference does not drop";
  EXPECT_LT(run(0.0f, true).second, 1e-6) << "rate 0 is the plain network";
}

// Backward data and weights against central differences of the double reference's loss
// L = sum(y * gy) + sum(hy * ghy) + sum(cy * gcy), on sampled inputs, states and weights.
class RnnGradient : public ::testing::TestWithParam<Case> {};

TEST_P(RnnGradient, MatchesFiniteDifferences) {
  const Case& c = GetParam();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  const int H = 5, I = c.skip ? H : 4;
  CaseRnn k;
  ASSERT_NO_FATAL_FAILURE(k.init(c, H, I));
  const Handle& hd = k.hd;
  const Rnn& r = k.r;
  const Tensor &hdesc = k.hdesc, &w = k.w;
  const auto &xd = k.xd, &yd = k.yd;
  const int T = k.T, B0 = k.B0, D = k.D;
  const size_t rows = k.rows, wbytes = k.wbytes, ws = k.ws, rs = k.rs;
  auto random = [&](size_t n) { return random_floats(rng, n); };
  const size_t state = static_cast<size_t>(c.layers) * D * B0 * H;
  auto x = random(rows * I), hx = random(state), cx = random(state), wv = random(wbytes / 4);
  const auto gy = random(rows * D * H), ghy = random(state), gcy = random(state);
  const bool lstm = c.mode == 2;
  std::vector<float> y(rows * D * H), hy(state), cy(state), dx(rows * I, NAN), dhx(state, NAN),
      dcx(state, NAN), dw(wv.size(), NAN);
  std::vector<uint8_t> wsb(ws), rsb(rs);
  ASSERT_EQ(miopenRNNForwardTraining(hd, r, T, xd.data(), x.data(), hdesc, hx.data(), hdesc,
                                     cx.data(), w, wv.data(), yd.data(), y.data(), hdesc, hy.data(),
                                     hdesc, cy.data(), wsb.data(), ws, rsb.data(), rs),
            miopenStatusSuccess);
  ASSERT_EQ(miopenRNNBackwardData(hd, r, T, yd.data(), y.data(), yd.data(), gy.data(), hdesc,
                                  ghy.data(), hdesc, gcy.data(), w, wv.data(), hdesc, hx.data(),
                                  hdesc, cx.data(), xd.data(), dx.data(), hdesc, dhx.data(), hdesc,
                                  dcx.data(), wsb.data(), ws, rsb.data(), rs),
            miopenStatusSuccess);
  ASSERT_EQ(miopenRNNBackwardWeights(hd, r, T, xd.data(), x.data(), hdesc, hx.data(), yd.data(),
                                     y.data(), w, dw.data(), wsb.data(), ws, rsb.data(), rs),
            miopenStatusSuccess);

  const ref::RnnConfig rc{c.mode, H, c.layers, c.bi, c.skip, c.bias};
  using V = std::vector<double>;
  V X(x.begin(), x.end()), HX(hx.begin(), hx.end()), CX(cx.begin(), cx.end()),
      W(wv.begin(), wv.end());
  auto loss = [&] {
    const auto f = ref::rnn_forward(rc, I, c.batch, X, HX, lstm ? CX : V{}, W);
    double l = 0;
    for (size_t i = 0; i < f.y.size(); ++i)
      l += f.y[i] * gy[i];
    for (size_t i = 0; i < f.hy.size(); ++i)
      l += f.hy[i] * ghy[i] + (lstm ? f.cy[i] * gcy[i] : 0.0);
    return l;
  };
  // 12 sampled entries per tensor. A step that moves a ReLU pre-activation across 0 has no
  // derivative to compare: the loss is then visibly not smooth over the step (its second
  // difference is of order e * the kink instead of e^2) and another entry is drawn.
  const double base = loss();
  auto check = [&](V& v, const std::vector<float>& grad, const char* what) {
    std::uniform_int_distribution<size_t> pick(0, v.size() - 1);
    int checked = 0;
    for (int tries = 0; checked < 12 && tries < 100; ++tries) {
      const size_t i = pick(rng);
      const double keep = v[i], e = 1e-5;
      v[i] = keep + e;
      const double up = loss();
      v[i] = keep - e;
      const double down = loss();
      v[i] = keep;
      if (std::abs(up - 2 * base + down) > 1e-8) continue;  // a kink inside [keep-e, keep+e]
      const double num = (up - down) / (2 * e);
      EXPECT_NEAR(grad[i], num, 1e-3 * std::max(1.0, std::abs(num))) << what << "[" << i << "]";
      ++checked;
    }
    EXPECT_EQ(checked, 12) << what << ": too many sampled entries sit on a ReLU kink";
  };
  // The double BPTT reference (the driver's -V oracle) agrees on every element.
  const auto rb =
      ref::rnn_backward(rc, I, c.batch, X, HX, lstm ? CX : V{}, W, V(gy.begin(), gy.end()),
                        V(ghy.begin(), ghy.end()), lstm ? V(gcy.begin(), gcy.end()) : V{});
  EXPECT_LT(ref::relative_rms(rb.dx, V(dx.begin(), dx.end())), 1e-5) << "dx vs reference";
  EXPECT_LT(ref::relative_rms(rb.dhx, V(dhx.begin(), dhx.end())), 1e-5) << "dhx vs reference";
  if (lstm) EXPECT_LT(ref::relative_rms(rb.dcx, V(dcx.begin(), dcx.end())), 1e-5) << "dcx";
  EXPECT_LT(ref::relative_rms(rb.dw, V(dw.begin(), dw.end())), 1e-5) << "dw vs reference";
  check(X, dx, "dx");
  check(HX, dhx, "dhx");
  if (lstm) check(CX, dcx, "dcx");
  check(W, dw, "dw");
}

std::vector<Case> gradient_cases() {
  std::vector<Case> v;
  for (int mode = 0; mode < 4; ++mode) {
    v.push_back({mode, false, false, true, 1, {3, 3, 2}, true});
    v.push_back({mode, true, false, true, 2, {3, 2, 2, 1}, true});
    v.push_back({mode, true, true, false, 2, {2, 2, 1}, true});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Modes, RnnGradient, ::testing::ValuesIn(gradient_cases()),
                         [](const auto& info) { return name(info.param); });

TEST(RnnApi, ForwardRejectsBadShapes) {
  Handle hd;
  Rnn r;
  ASSERT_EQ(miopenSetRNNDescriptor(r, 4, 1, miopenRNNskip, miopenRNNunidirection, miopenLSTM,
                                   miopenRNNNoBias, miopenRNNdefault, miopenFloat),
            miopenStatusSuccess);
  Tensor x0(miopenFloat, {2, 5}), x1(miopenFloat, {3, 5});
  miopenTensorDescriptor_t xd[2] = {x0, x1};
  size_t ws = 0;
  expect_failure(miopenStatusBadParm, "miopenGetRNNWorkspaceSize", "Batch size must not ascend",
                 [&] { return miopenGetRNNWorkspaceSize(hd, r, 2, xd, &ws); });
  Tensor x2(miopenFloat, {2, 5});
  miopenTensorDescriptor_t xs[1] = {x2};
  expect_failure(miopenStatusBadParm, "miopenGetRNNWorkspaceSize",
                 "input_vector size and hidden_size shoud be same",
                 [&] { return miopenGetRNNWorkspaceSize(hd, r, 1, xs, &ws); });
}

// fp16 storage (rnnfp16): every pass on half tensors against the double reference run on the
// same half-rounded inputs. The kernels compute in fp32, so the error is the outputs' own
// rounding (relative 2^-11) plus fp32 noise.
class RnnHalf : public ::testing::TestWithParam<Case> {};

TEST_P(RnnHalf, MatchesReferenceOnRoundedInputs) {
  const Case& c = GetParam();
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  const int H = 7, I = c.skip ? H : 6;
  CaseRnn k;
  ASSERT_NO_FATAL_FAILURE(k.init(c, H, I, miopenHalf));
  CaseRnn k32;  // the same RNN in fp32: fp16 needs more workspace (its fp32 staging)
  ASSERT_NO_FATAL_FAILURE(k32.init(c, H, I));
  EXPECT_EQ(k.wbytes * 2, k32.wbytes);
  EXPECT_GT(k.ws, k32.ws);
  const size_t state = static_cast<size_t>(c.layers) * k.D * k.B0 * H;
  const size_t out_rows = k.rows * k.D * H;
  using V = std::vector<double>;
  // Random half tensors and their exact values.
  auto random = [&](size_t n, V& exact) {
    std::vector<uint16_t> h(n);
    exact.resize(n);
    for (size_t i = 0; i < n; ++i) {
      h[i] = float_to_half(u(rng));
      exact[i] = half_to_float(h[i]);
    }
    return h;
  };
  auto as_double = [](const std::vector<uint16_t>& h) {
    V v(h.size());
    for (size_t i = 0; i < h.size(); ++i)
      v[i] = half_to_float(h[i]);
    return v;
  };
  const bool lstm = c.mode == 2;
  V X, HX, CX, W, GY, GHY, GCY;
  const auto x = random(k.rows * I, X), hx = random(state, HX), cx = random(state, CX),
             w = random(k.wbytes / 2, W), gy = random(out_rows, GY), ghy = random(state, GHY),
             gcy = random(state, GCY);
  const uint16_t nan_half = 0x7e00;
  std::vector<uint16_t> y(out_rows, nan_half), hy(state, nan_half), cy(state, nan_half),
      dx(k.rows * I, nan_half), dhx(state, nan_half), dcx(state, nan_half), dw(w.size(), nan_half);
  std::vector<uint8_t> wsb(k.ws), rsb(k.rs);
  const ref::RnnConfig rc{c.mode, H, c.layers, c.bi, c.skip, c.bias};
  const auto f = ref::rnn_forward(rc, I, c.batch, X, HX, lstm ? CX : V{}, W);
  constexpr double kTol = 3e-3;
  ASSERT_EQ(miopenRNNForwardInference(k.hd, k.r, k.T, k.xd.data(), x.data(), k.hdesc, hx.data(),
                                      k.hdesc, cx.data(), k.w, w.data(), k.yd.data(), y.data(),
                                      k.hdesc, hy.data(), k.hdesc, cy.data(), wsb.data(), k.ws),
            miopenStatusSuccess);
  EXPECT_LT(ref::relative_rms(f.y, as_double(y)), kTol) << "inference y";
  std::fill(y.begin(), y.end(), nan_half);
  ASSERT_EQ(
      miopenRNNForwardTraining(k.hd, k.r, k.T, k.xd.data(), x.data(), k.hdesc, hx.data(), k.hdesc,
                               cx.data(), k.w, w.data(), k.yd.data(), y.data(), k.hdesc, hy.data(),
                               k.hdesc, cy.data(), wsb.data(), k.ws, rsb.data(), k.rs),
      miopenStatusSuccess);
  EXPECT_LT(ref::relative_rms(f.y, as_double(y)), kTol) << "y";
  EXPECT_LT(ref::relative_rms(f.hy, as_double(hy)), kTol) << "hy";
  if (lstm) EXPECT_LT(ref::relative_rms(f.cy, as_double(cy)), kTol) << "cy";
  ASSERT_EQ(
      miopenRNNBackwardData(k.hd, k.r, k.T, k.yd.data(), y.data(), k.yd.data(), gy.data(), k.hdesc,
                            ghy.data(), k.hdesc, gcy.data(), k.w, w.data(), k.hdesc, hx.data(),
                            k.hdesc, cx.data(), k.xd.data(), dx.data(), k.hdesc, dhx.data(),
                            k.hdesc, dcx.data(), wsb.data(), k.ws, rsb.data(), k.rs),
      miopenStatusSuccess);
  ASSERT_EQ(miopenRNNBackwardWeights(k.hd, k.r, k.T, k.xd.data(), x.data(), k.hdesc, hx.data(),
                                     k.yd.data(), y.data(), k.w, dw.data(), wsb.data(), k.ws,
                                     rsb.data(), k.rs),
            miopenStatusSuccess);
  const auto b =
      ref::rnn_backward(rc, I, c.batch, X, HX, lstm ? CX : V{}, W, GY, GHY, lstm ? GCY : V{});
  EXPECT_LT(ref::relative_rms(b.dx, as_double(dx)), kTol) << "dx";
  EXPECT_LT(ref::relative_rms(b.dhx, as_double(dhx)), kTol) << "dhx";
  if (lstm) EXPECT_LT(ref::relative_rms(b.dcx, as_double(dcx)), kTol) << "dcx";
  EXPECT_LT(ref::relative_rms(b.dw, as_double(dw)), kTol) << "dw";
  // A workspace sized for fp32 is too small for fp16: BadParm, not an overrun.
  EXPECT_EQ(miopenRNNForwardInference(k.hd, k.r, k.T, k.xd.data(), x.data(), k.hdesc, hx.data(),
                                      k.hdesc, cx.data(), k.w, w.data(), k.yd.data(), y.data(),
                                      k.hdesc, hy.data(), k.hdesc, cy.data(), wsb.data(), k32.ws),
            miopenStatusBadParm);
}

std::vector<Case> half_cases() {
  std::vector<Case> v;
  for (int mode = 0; mode < 4; ++mode) {
    v.push_back({mode, true, false, true, 2, {4, 4, 3, 1}, true});
    v.push_back({mode, false, true, false, 3, {3, 3}, true});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Modes, RnnHalf, ::testing::ValuesIn(half_cases()),
                         [](const auto& info) { return name(info.param); });

// Gradients through the dropout between layers: with the generator's state not evolving, every
// training call draws the same masks, so the loss is a fixed function of the inputs and the
// backward passes (which reuse the forward's masks from the reserve) must match its central
// differences. Evaluated in fp32 through the API itself (the reference has no dropout), hence
// the larger step and tolerance than the double-reference gradient test.
TEST(RnnApi, GradientsThroughDropoutMatchFiniteDifferences) {
  for (int mode : {1, 2, 3}) {
    SCOPED_TRACE("mode " + std::to_string(mode));
    const unsigned seed = fresh_seed();
    SCOPED_TRACE(seed_trace(seed));
    std::mt19937 rng(seed);
    Handle hd;
    Dropout dd;
    size_t sbytes = 0;
    miopenDropoutGetStatesSize(hd, &sbytes);
    std::vector<uint8_t> states(sbytes);
    ASSERT_EQ(miopenSetDropoutDescriptor(dd, hd, 0.4f, states.data(), states.size(), seed, false,
                                         false, MIOPEN_RNG_PSEUDO_XORWOW),
              miopenStatusSuccess);
    const int H = 6, I = 4, L = 3, D = 2, T = 3;
    const std::vector<size_t> batch = {3, 3, 2};
    Rnn r;
    ASSERT_EQ(miopenSetRNNDescriptor_V2(r, H, L, dd, miopenRNNlinear, miopenRNNbidirection,
                                        static_cast<miopenRNNMode_t>(mode), miopenRNNwithBias,
                                        miopenRNNdefault, miopenFloat),
              miopenStatusSuccess);
    std::vector<Tensor> xs, ys;
    xs.reserve(T);
    ys.reserve(T);
    std::vector<miopenTensorDescriptor_t> xd, yd;
    for (size_t b : batch) {
      xs.emplace_back(miopenFloat, std::vector<int>{static_cast<int>(b), I});
      ys.emplace_back(miopenFloat, std::vector<int>{static_cast<int>(b), D * H});
      xd.push_back(xs.back());
      yd.push_back(ys.back());
    }
    Tensor hdesc(miopenFloat, {L * D, 3, H}), w;
    ASSERT_EQ(miopenGetRNNParamsDescriptor(hd, r, xd[0], w, miopenFloat), miopenStatusSuccess);
    size_t wb = 0, ws = 0, rs = 0;
    miopenGetTensorNumBytes(w, &wb);
    miopenGetRNNWorkspaceSize(hd, r, T, xd.data(), &ws);
    miopenGetRNNTrainingReserveSize(hd, r, T, xd.data(), &rs);
    auto random = [&](size_t n) { return random_floats(rng, n); };
    const size_t rows = 8, state = static_cast<size_t>(L) * D * 3 * H;
    auto x = random(rows * I), hx = random(state), wv = random(wb / 4);
    const auto gy = random(rows * D * H), ghy = random(state);
    std::vector<float> y(rows * D * H), hy(state), cy(state), dx(rows * I, NAN), dhx(state, NAN),
        dw(wv.size(), NAN);
    std::vector<uint8_t> wsb(ws), rsb(rs);
    auto forward = [&] {
      EXPECT_EQ(miopenRNNForwardTraining(hd, r, T, xd.data(), x.data(), hdesc, hx.data(), hdesc,
                                         nullptr, w, wv.data(), yd.data(), y.data(), hdesc,
                                         hy.data(), hdesc, nullptr, wsb.data(), ws, rsb.data(), rs),
                miopenStatusSuccess);
      double l = 0;
      for (size_t i = 0; i < y.size(); ++i)
        l += static_cast<double>(y[i]) * gy[i];
      for (size_t i = 0; i < hy.size(); ++i)
        l += static_cast<double>(hy[i]) * ghy[i];
      return l;
    };
    const double base = forward();
    ASSERT_EQ(miopenRNNBackwardData(hd, r, T, yd.data(), y.data(), yd.data(), gy.data(), hdesc,
                                    ghy.data(), hdesc, nullptr, w, wv.data(), hdesc, hx.data(),
                                    hdesc, nullptr, xd.data(), dx.data(), hdesc, dhx.data(), hdesc,
                                    nullptr, wsb.data(), ws, rsb.data(), rs),
              miopenStatusSuccess);
    ASSERT_EQ(miopenRNNBackwardWeights(hd, r, T, xd.data(), x.data(), hdesc, hx.data(), yd.data(),
                                       y.data(), w, dw.data(), wsb.data(), ws, rsb.data(), rs),
              miopenStatusSuccess);
    EXPECT_EQ(forward(), base) << "the masks did not repeat: the check below would be void";
    auto check = [&](std::vector<float>& v, const std::vector<float>& grad, const char* what,
                     size_t lo, size_t hi) {
      std::uniform_int_distribution<size_t> pick(lo, hi - 1);
      for (int n = 0; n < 10; ++n) {
        const size_t i = pick(rng);
        const float keep = v[i], e = 2e-3f;
        v[i] = keep + e;
        const double up = forward();
        v[i] = keep - e;
        const double down = forward();
        v[i] = keep;
        const double num = (up - down) / (static_cast<double>(keep + e) - (keep - e));
        EXPECT_NEAR(grad[i], num, 2e-3 + 1e-2 * std::abs(num)) << what << "[" << i << "]";
      }
    };
    check(x, dx, "dx", 0, x.size());
    check(hx, dhx, "dhx", 0, hx.size());
    check(wv, dw, "dw", 0, wv.size());
    // Not void: the same network at rate 0 has other gradients.
    std::vector<float> dw_masked = dw;
    ASSERT_EQ(miopenSetDropoutDescriptor(dd, hd, 0.0f, states.data(), states.size(), seed, false,
                                         false, MIOPEN_RNG_PSEUDO_XORWOW),
              miopenStatusSuccess);
    forward();
    ASSERT_EQ(miopenRNNBackwardData(hd, r, T, yd.data(), y.data(), yd.data(), gy.data(), hdesc,
                                    ghy.data(), hdesc, nullptr, w, wv.data(), hdesc, hx.data(),
                                    hdesc, nullptr, xd.data(), dx.data(), hdesc, dhx.data(), hdesc,
                                    nullptr, wsb.data(), ws, rsb.data(), rs),
              miopenStatusSuccess);
    ASSERT_EQ(miopenRNNBackwardWeights(hd, r, T, xd.data(), x.data(), hdesc, hx.data(), yd.data(),
                                       y.data(), w, dw.data(), wsb.data(), ws, rsb.data(), rs),
              miopenStatusSuccess);
    EXPECT_GT(ref::relative_rms(std::vector<double>(dw.begin(), dw.end()),
                                std::vector<double>(dw_masked.begin(), dw_masked.end())),
              1e-4)
        << "fp32 noise is ~1e-7; the masks change the gradient by ~1e-2";
  }
}

}  // namespace
}  // namespace anydnn::test
