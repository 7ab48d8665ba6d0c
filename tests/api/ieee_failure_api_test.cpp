// Failure behaviour of batch norm, RNN and dropout through the public C API: NaN / Inf inputs
// propagate exactly as IEEE arithmetic says (element by element expectations that hold for any
// correct implementation); too-small RNN workspaces / reserves and dropout reserves are BadParm
// with a reason and leave the outputs untouched.
#include <gtest/gtest.h>

#include <miopen/miopen.h>

#include <cmath>
#include <cstring>

#include "api_test_util.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

bool all_nan(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float e) { return std::isnan(e); });
}

// ---- Batch normalization -------------------------------------------------------------------

struct Bn {
  Handle h;
  Tensor x, bn;
  int N = 3, C = 4, H = 5, W = 6;
  std::vector<float> hx, y, scale, bias, mean, var;
  // layout NCHW or NHWC (through strides): the channel-major and channel-last solvers.
  Bn(std::mt19937& rng, miopenBatchNormMode_t mode, bool nhwc) {
    const int lens[] = {N, C, H, W};
    const int nchw[] = {C * H * W, H * W, W, 1}, nhwc_s[] = {H * W * C, 1, W * C, C};
    EXPECT_EQ(miopenSetTensorDescriptor(x, miopenFloat, 4, lens, nhwc ? nhwc_s : nchw),
              miopenStatusSuccess);
    EXPECT_EQ(miopenDeriveBNTensorDescriptor(bn, x, mode), miopenStatusSuccess);
    const size_t n = static_cast<size_t>(N) * C * H * W;
    const size_t p = mode == miopenBNSpatial ? C : n / N;
    hx = random_floats(rng, n);
    y.assign(n, NAN);
    scale = random_floats(rng, p, 0.5f, 1.5f);
    bias = random_floats(rng, p);
    mean = random_floats(rng, p);
    var = random_floats(rng, p, 0.5f, 1.0f);
  }
  size_t at(int n, int c, int hh, int ww, bool nhwc) const {
    return nhwc ? ((static_cast<size_t>(n) * H + hh) * W + ww) * C + c
                : ((static_cast<size_t>(n) * C + c) * H + hh) * W + ww;
  }
};

TEST(BnIeee, NanAndInfPropagateThroughEverySolver) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  float one = 1.0f, zero = 0.0f;
  for (const auto mode : {miopenBNSpatial, miopenBNPerActivation}) {
    for (const bool nhwc : {false, true}) {
      SCOPED_TRACE(std::string(mode == miopenBNSpatial ? "spatial" : "per-activation") +
                   (nhwc ? " NHWC" : " NCHW"));
      Bn b(rng, mode, nhwc);
      const size_t nan_at = b.at(1, 2, 3, 4, nhwc), inf_at = b.at(0, 1, 2, 2, nhwc);
      b.hx[nan_at] = NAN;
      b.hx[inf_at] = INFINITY;
      // Inference: only the NaN and Inf elements are non-finite; Inf keeps the sign of scale.
      ASSERT_EQ(miopenBatchNormalizationForwardInference(
                    b.h, mode, &one, &zero, b.x, b.hx.data(), b.x, b.y.data(), b.bn, b.scale.data(),
                    b.bias.data(), b.mean.data(), b.var.data(), 1e-5),
                miopenStatusSuccess);
      for (size_t i = 0; i < b.y.size(); ++i) {
        if (i == nan_at)
          EXPECT_TRUE(std::isnan(b.y[i]));
        else if (i == inf_at)
          EXPECT_EQ(b.y[i], INFINITY);  // scale > 0
        else
          ASSERT_TRUE(std::isfinite(b.y[i])) << i;
      }
      // Training: the statistics of the NaN's group (its channel, or its (c,h,w) position)
      // are NaN, and so is the Inf's (Inf - Inf in the variance); every output of those two
      // groups is NaN, all others finite.
      std::vector<float> run_mean(b.mean), run_var(b.var), save_mean(b.mean.size(), NAN),
          save_inv(b.mean.size(), NAN);
      std::fill(b.y.begin(), b.y.end(), NAN);
      ASSERT_EQ(miopenBatchNormalizationForwardTraining(
                    b.h, mode, &one, &zero, b.x, b.hx.data(), b.x, b.y.data(), b.bn, b.scale.data(),
                    b.bias.data(), 0.1, run_mean.data(), run_var.data(), 1e-5, save_mean.data(),
                    save_inv.data()),
                miopenStatusSuccess);
      const auto group = [&](int n, int c, int hh, int ww) {
        (void)n;
        return mode == miopenBNSpatial ? static_cast<size_t>(c)
                                       : (static_cast<size_t>(c) * b.H + hh) * b.W + ww;
      };
      const size_t g_nan = group(1, 2, 3, 4), g_inf = group(0, 1, 2, 2);
      for (size_t g = 0; g < save_mean.size(); ++g) {
        const bool bad = g == g_nan || g == g_inf;
        EXPECT_EQ(std::isnan(save_mean[g]) || std::isinf(save_mean[g]), bad) << g;
        EXPECT_EQ(std::isfinite(run_var[g]), !bad) << g;
      }
      for (int n = 0; n < b.N; ++n)
        for (int c = 0; c < b.C; ++c)
          for (int hh = 0; hh < b.H; ++hh)
            for (int ww = 0; ww < b.W; ++ww) {
              const size_t g = group(n, c, hh, ww);
              const float v = b.y[b.at(n, c, hh, ww, nhwc)];
              if (g == g_nan || g == g_inf)
                ASSERT_TRUE(std::isnan(v)) << n << c << hh << ww;
              else
                ASSERT_TRUE(std::isfinite(v)) << n << c << hh << ww;
            }
    }
  }
}

// ---- Dropout -------------------------------------------------------------------------------

struct DropoutCase {
  Handle h;
  Dropout d;
  Tensor t{miopenFloat, {4, 3, 5, 7}};
  std::vector<uint8_t> states;
  size_t reserve_bytes = 0;
  explicit DropoutCase(unsigned seed) {
    size_t sb = 0;
    EXPECT_EQ(miopenDropoutGetStatesSize(h, &sb), miopenStatusSuccess);
    states.resize(sb);
    EXPECT_EQ(miopenSetDropoutDescriptor(d, h, 0.5f, states.data(), sb, seed, false, false,
                                         MIOPEN_RNG_PSEUDO_XORWOW),
              miopenStatusSuccess);
    EXPECT_EQ(miopenDropoutGetReserveSpaceSize(t, &reserve_bytes), miopenStatusSuccess);
  }
};

// y = mask ? x / (1 - rate) : 0: a kept NaN or Inf stays NaN or Inf, a dropped one is 0 (the
// mask selects, it does not multiply). Backward applies the same mask to dy.
TEST(DropoutIeee, KeptNanAndInfPropagateDroppedOnesAreZero) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  DropoutCase c(seed);
  const size_t n = 4 * 3 * 5 * 7;
  std::vector<float> x = random_floats(rng, n), y(n, NAN), dx(n, NAN);
  for (size_t i = 0; i < n; i += 3)
    x[i] = i % 2 ? NAN : (i % 4 ? INFINITY : -INFINITY);
  std::vector<uint8_t> reserve(c.reserve_bytes);
  ASSERT_EQ(miopenDropoutForward(c.h, c.d, c.t, c.t, x.data(), c.t, y.data(), reserve.data(),
                                 reserve.size()),
            miopenStatusSuccess);
  ASSERT_EQ(miopenDropoutBackward(c.h, c.d, c.t, c.t, x.data(), c.t, dx.data(), reserve.data(),
                                  reserve.size()),
            miopenStatusSuccess);
  size_t kept_special = 0, dropped_special = 0;
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    for (const auto& out : {y, dx}) {
      if (!reserve[i]) {
        EXPECT_EQ(out[i], 0.0f);
      } else if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(out[i]));
      } else {
        EXPECT_EQ(out[i], x[i] * 2.0f);  // Inf stays a signed Inf
      }
    }
    if (!std::isfinite(x[i])) ++(reserve[i] ? kept_special : dropped_special);
  }
  EXPECT_GT(kept_special, 0u);
  EXPECT_GT(dropped_special, 0u);
}

TEST(DropoutIeee, ReserveTooSmallIsBadParmAndWritesNothing) {
  DropoutCase c(7);
  const size_t n = 4 * 3 * 5 * 7;
  std::vector<float> x(n, 1.0f), y(n, NAN);
  std::vector<uint8_t> reserve(c.reserve_bytes, 0xAB);
  expect_failure(miopenStatusBadParm, "miopenDropoutForward", "reserveSpaceSizeInBytes", [&] {
    return miopenDropoutForward(c.h, c.d, c.t, c.t, x.data(), c.t, y.data(), reserve.data(),
                                reserve.size() - 1);
  });
  EXPECT_TRUE(all_nan(y));
  EXPECT_TRUE(std::all_of(reserve.begin(), reserve.end(), [](uint8_t b) { return b == 0xAB; }));
}

// ---- RNN -----------------------------------------------------------------------------------

// T = 4 steps of batch 3, input 5, hidden 6, one or two layers, unidirectional, with bias.
struct RnnCase {
  static constexpr int T = 4, B = 3, I = 5, H = 6;
  int L;
  Handle hd;
  Rnn r;
  std::vector<Tensor> xs, ys;
  std::vector<miopenTensorDescriptor_t> xd, yd;
  Tensor hdesc, w;
  size_t wbytes = 0, ws = 0, rs = 0;
  std::vector<float> x, hx, cx, wt, y, hy, cy;
  RnnCase(miopenRNNMode_t mode, int layers, std::mt19937& rng) : L(layers) {
    EXPECT_EQ(miopenSetRNNDescriptor(r, H, L, miopenRNNlinear, miopenRNNunidirection, mode,
                                     miopenRNNwithBias, miopenRNNdefault, miopenFloat),
              miopenStatusSuccess);
    xs.reserve(T);
    ys.reserve(T);
    for (int t = 0; t < T; ++t) {
      xs.emplace_back(miopenFloat, std::vector<int>{B, I});
      ys.emplace_back(miopenFloat, std::vector<int>{B, H});
      xd.push_back(xs.back());
      yd.push_back(ys.back());
    }
    const int state[] = {L, B, H};
    EXPECT_EQ(miopenSetTensorDescriptor(hdesc, miopenFloat, 3, state, nullptr),
              miopenStatusSuccess);
    EXPECT_EQ(miopenGetRNNParamsDescriptor(hd, r, xd[0], w, miopenFloat), miopenStatusSuccess);
    EXPECT_EQ(miopenGetTensorNumBytes(w, &wbytes), miopenStatusSuccess);
    EXPECT_EQ(miopenGetRNNWorkspaceSize(hd, r, T, xd.data(), &ws), miopenStatusSuccess);
    EXPECT_EQ(miopenGetRNNTrainingReserveSize(hd, r, T, xd.data(), &rs), miopenStatusSuccess);
    x = random_floats(rng, T * B * I);
    hx = random_floats(rng, L * B * H);
    cx = random_floats(rng, L * B * H);
    wt = random_floats(rng, wbytes / 4);
    y.assign(T * B * H, NAN);
    hy.assign(L * B * H, NAN);
    cy.assign(L * B * H, NAN);
  }
  miopenStatus_t train(std::vector<uint8_t>& wsb, size_t ws_size, std::vector<uint8_t>& rsb,
                       size_t rs_size) {
    return miopenRNNForwardTraining(hd, r, T, xd.data(), x.data(), hdesc, hx.data(), hdesc,
                                    cx.data(), w, wt.data(), yd.data(), y.data(), hdesc, hy.data(),
                                    hdesc, cy.data(), wsb.data(), ws_size, rsb.data(), rs_size);
  }
};

// A NaN in x at step 1 of sequence 1: y of that sequence from step 1 on, and its final states,
// are NaN (the recurrence carries it); earlier steps and the other sequences stay finite. Then
// backward from dy with a NaN at step 2 of sequence 0: dx of that sequence up to step 2 is NaN,
// the rest finite, and every weight gradient is NaN (each sums over that sequence's steps).
// Not ReLU: relu(NaN) is NaN or 0 depending on which IEEE max (2019 maximum or 2008 maxNum) an
// implementation uses, and relu'(z) = 0 may select 0 rather than multiply NaN by 0.
TEST(RnnIeee, NanFollowsTheRecurrenceInSmoothModes) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  constexpr int T = RnnCase::T, B = RnnCase::B, H = RnnCase::H, I = RnnCase::I;
  for (const auto mode : {miopenRNNTANH, miopenLSTM, miopenGRU}) {
    for (int layers : {1, 2}) {
      SCOPED_TRACE("mode " + std::to_string(mode) + ", layers " + std::to_string(layers));
      RnnCase k(mode, layers, rng);
      k.x[(1 * B + 1) * I + 2] = NAN;
      std::vector<uint8_t> wsb(k.ws), rsb(k.rs);
      ASSERT_EQ(k.train(wsb, k.ws, rsb, k.rs), miopenStatusSuccess);
      for (int t = 0; t < T; ++t)
        for (int b = 0; b < B; ++b)
          for (int j = 0; j < H; ++j) {
            const float v = k.y[(t * B + b) * H + j];
            ASSERT_EQ(std::isnan(v), b == 1 && t >= 1) << t << " " << b << " " << j;
            if (!std::isnan(v)) ASSERT_TRUE(std::isfinite(v));
          }
      for (int l = 0; l < layers; ++l)
        for (int b = 0; b < B; ++b)
          for (int j = 0; j < H; ++j) {
            ASSERT_EQ(std::isnan(k.hy[(l * B + b) * H + j]), b == 1);
            if (mode == miopenLSTM) ASSERT_EQ(std::isnan(k.cy[(l * B + b) * H + j]), b == 1);
          }

      // Backward on finite activations, with one NaN in dy.
      k.x[(1 * B + 1) * I + 2] = 0.25f;
      ASSERT_EQ(k.train(wsb, k.ws, rsb, k.rs), miopenStatusSuccess);
      std::vector<float> dy = random_floats(rng, T * B * H),
                         dhy = random_floats(rng, layers * B * H),
                         dcy = random_floats(rng, layers * B * H), dx(T * B * I, NAN),
                         dhx(layers * B * H, NAN), dcx(layers * B * H, NAN), dw(k.wbytes / 4, 0.0f);
      dy[(2 * B + 0) * H + 3] = NAN;
      ASSERT_EQ(miopenRNNBackwardData(k.hd, k.r, T, k.yd.data(), k.y.data(), k.yd.data(), dy.data(),
                                      k.hdesc, dhy.data(), k.hdesc, dcy.data(), k.w, k.wt.data(),
                                      k.hdesc, k.hx.data(), k.hdesc, k.cx.data(), k.xd.data(),
                                      dx.data(), k.hdesc, dhx.data(), k.hdesc, dcx.data(),
                                      wsb.data(), k.ws, rsb.data(), k.rs),
                miopenStatusSuccess);
      for (int t = 0; t < T; ++t)
        for (int b = 0; b < B; ++b)
          for (int j = 0; j < I; ++j) {
            const float v = dx[(t * B + b) * I + j];
            ASSERT_EQ(std::isnan(v), b == 0 && t <= 2) << t << " " << b << " " << j;
            if (!std::isnan(v)) ASSERT_TRUE(std::isfinite(v));
          }
      for (int l = 0; l < layers; ++l)
        for (int b = 0; b < B; ++b)
          ASSERT_EQ(std::isnan(dhx[(l * B + b) * H]), b == 0);
      ASSERT_EQ(miopenRNNBackwardWeights(k.hd, k.r, T, k.xd.data(), k.x.data(), k.hdesc,
                                         k.hx.data(), k.yd.data(), k.y.data(), k.w, dw.data(),
                                         wsb.data(), k.ws, rsb.data(), k.rs),
                miopenStatusSuccess);
      EXPECT_TRUE(all_nan(dw));
    }
  }
}

// tanh(+-Inf) = +-1 and sigmoid(+-Inf) = 1 / 0 (IEEE / C Annex F): an Inf in x of a tanh, LSTM
// or GRU network gives finite outputs everywhere, |h| <= 1.
TEST(RnnIeee, InfInputSaturatesToFiniteOutputs) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  for (const auto mode : {miopenRNNTANH, miopenLSTM, miopenGRU}) {
    SCOPED_TRACE("mode " + std::to_string(mode));
    RnnCase k(mode, 2, rng);
    k.x[(1 * RnnCase::B + 2) * RnnCase::I + 0] = INFINITY;
    k.x[(2 * RnnCase::B + 0) * RnnCase::I + 4] = -INFINITY;
    std::vector<uint8_t> wsb(k.ws), rsb(k.rs);
    ASSERT_EQ(k.train(wsb, k.ws, rsb, k.rs), miopenStatusSuccess);
    for (float v : k.y)
      ASSERT_TRUE(std::isfinite(v) && std::abs(v) <= 1.0f) << v;
    for (float v : k.hy)
      ASSERT_TRUE(std::isfinite(v) && std::abs(v) <= 1.0f) << v;
  }
}

// Workspace or reserve one byte short in every training pass: BadParm naming the buffer, and
// the outputs keep their poison.
TEST(RnnWorkspaceTooSmall, EveryTrainingPass) {
  std::mt19937 rng(fresh_seed());
  RnnCase k(miopenLSTM, 2, rng);
  std::vector<uint8_t> wsb(k.ws), rsb(k.rs);
  expect_failure(miopenStatusBadParm, "miopenRNNForwardTraining", "workSpaceNumBytes",
                 [&] { return k.train(wsb, k.ws - 1, rsb, k.rs); });
  expect_failure(miopenStatusBadParm, "miopenRNNForwardTraining", "reserveSpaceNumBytes",
                 [&] { return k.train(wsb, k.ws, rsb, k.rs - 1); });
  EXPECT_TRUE(all_nan(k.y) && all_nan(k.hy) && all_nan(k.cy));
  expect_failure(miopenStatusBadParm, "miopenRNNForwardInference", "workSpaceNumBytes", [&] {
    return miopenRNNForwardInference(k.hd, k.r, k.T, k.xd.data(), k.x.data(), k.hdesc, k.hx.data(),
                                     k.hdesc, k.cx.data(), k.w, k.wt.data(), k.yd.data(),
                                     k.y.data(), k.hdesc, k.hy.data(), k.hdesc, k.cy.data(),
                                     wsb.data(), k.ws - 1);
  });
  EXPECT_TRUE(all_nan(k.y) && all_nan(k.hy) && all_nan(k.cy));
  ASSERT_EQ(k.train(wsb, k.ws, rsb, k.rs), miopenStatusSuccess);
  const size_t state = static_cast<size_t>(k.L) * k.B * k.H;
  std::vector<float> dy(k.y.size(), 0.5f), dhy(state, 0.5f), dcy(state, 0.5f), dx(k.x.size(), NAN),
      dhx(state, NAN), dcx(state, NAN), dw(k.wbytes / 4, NAN);
  const auto bwd_data = [&](size_t ws, size_t rs) {
    return miopenRNNBackwardData(k.hd, k.r, k.T, k.yd.data(), k.y.data(), k.yd.data(), dy.data(),
                                 k.hdesc, dhy.data(), k.hdesc, dcy.data(), k.w, k.wt.data(),
                                 k.hdesc, k.hx.data(), k.hdesc, k.cx.data(), k.xd.data(), dx.data(),
                                 k.hdesc, dhx.data(), k.hdesc, dcx.data(), wsb.data(), ws,
                                 rsb.data(), rs);
  };
  const auto bwd_weights = [&](size_t ws, size_t rs) {
    return miopenRNNBackwardWeights(k.hd, k.r, k.T, k.xd.data(), k.x.data(), k.hdesc, k.hx.data(),
                                    k.yd.data(), k.y.data(), k.w, dw.data(), wsb.data(), ws,
                                    rsb.data(), rs);
  };
  expect_failure(miopenStatusBadParm, "miopenRNNBackwardData", "workSpaceNumBytes",
                 [&] { return bwd_data(k.ws - 1, k.rs); });
  expect_failure(miopenStatusBadParm, "miopenRNNBackwardData", "reserveSpaceNumBytes",
                 [&] { return bwd_data(k.ws, k.rs - 1); });
  EXPECT_TRUE(all_nan(dx) && all_nan(dhx) && all_nan(dcx));
  expect_failure(miopenStatusBadParm, "miopenRNNBackwardWeights", "workSpaceNumBytes",
                 [&] { return bwd_weights(k.ws - 1, k.rs); });
  expect_failure(miopenStatusBadParm, "miopenRNNBackwardWeights", "reserveSpaceNumBytes",
                 [&] { return bwd_weights(k.ws, k.rs - 1); });
  EXPECT_TRUE(all_nan(dw));
  ASSERT_EQ(bwd_data(k.ws, k.rs), miopenStatusSuccess);
  EXPECT_FALSE(all_nan(dx));
}

}  // namespace
}  // namespace anydnn::test
