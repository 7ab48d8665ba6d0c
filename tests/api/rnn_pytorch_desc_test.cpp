// The descriptors PyTorch's MIOpen RNN path passes (aten/src/ATen/native/miopen/RNN_miopen.cpp):
// per-step x / y as [batch, features, 1] for packed input and [batch, features, 1, 1, 1]
// otherwise, hx / cx / hy / cy as [layers*directions, batch, hidden, 1, 1], the weights as
// [params, 1, 1]. MIOpen reads the leading lengths and accepts them in every RNN call, so anydnn
// must too (issue [one-path] 6): a two-layer bidirectional LSTM (input 3, hidden 4, batches
// 2, 2, 1) through the whole legacy API with those descriptors gives the same sizes and the same
// bits as with plain 2-D / 3-D ones; a trailing length other than 1 is still BadParm.
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <random>
#include <vector>

#include "api_test_util.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

constexpr int kLayers = 2, kDirs = 2, kInput = 3, kHidden = 4;
const std::vector<int> kBatch = {2, 2, 1};

struct Descriptors {
  std::vector<Tensor> x, y;
  Tensor h, w;
  std::vector<miopenTensorDescriptor_t> xd, yd;
};

// extra: how many trailing 1s the step descriptors get (0 = plain [batch, features]); state:
// trailing 1s of the state descriptors; wdims: the weight descriptor's rank (1 or 3).
void make(Descriptors& d, miopenRNNDescriptor_t rnn, miopenHandle_t h, int extra, int state,
          int wdims) {
  d.x.reserve(kBatch.size());
  d.y.reserve(kBatch.size());
  for (int b : kBatch) {
    std::vector<int> xl = {b, kInput}, yl = {b, kDirs * kHidden};
    xl.insert(xl.end(), extra, 1);
    yl.insert(yl.end(), extra, 1);
    d.x.emplace_back(miopenFloat, xl);
    d.y.emplace_back(miopenFloat, yl);
    d.xd.push_back(d.x.back());
    d.yd.push_back(d.y.back());
  }
  std::vector<int> hl = {kLayers * kDirs, kBatch[0], kHidden};
  hl.insert(hl.end(), state, 1);
  ASSERT_EQ(
      miopenSetTensorDescriptor(d.h, miopenFloat, static_cast<int>(hl.size()), hl.data(), nullptr),
      miopenStatusSuccess);
  size_t bytes = 0;
  ASSERT_EQ(miopenGetRNNParamsSize(h, rnn, d.xd[0], &bytes, miopenFloat), miopenStatusSuccess);
  std::vector<int> wl = {static_cast<int>(bytes / sizeof(float))};
  wl.insert(wl.end(), wdims - 1, 1);
  ASSERT_EQ(
      miopenSetTensorDescriptor(d.w, miopenFloat, static_cast<int>(wl.size()), wl.data(), nullptr),
      miopenStatusSuccess);
}

struct Results {
  size_t params = 0, ws = 0, rs = 0;
  std::vector<float> y, hy, cy, dx, dhx, dcx, dw, y_inference;
};

// Every pass of the legacy API on the same inputs (seeded), through descriptors `d`.
Results run_all(miopenHandle_t h, miopenRNNDescriptor_t rnn, Descriptors& d, unsigned seed) {
  Results r;
  const int T = static_cast<int>(kBatch.size());
  EXPECT_EQ(miopenGetRNNParamsSize(h, rnn, d.xd[0], &r.params, miopenFloat), miopenStatusSuccess);
  EXPECT_EQ(miopenGetRNNWorkspaceSize(h, rnn, T, d.xd.data(), &r.ws), miopenStatusSuccess);
  EXPECT_EQ(miopenGetRNNTrainingReserveSize(h, rnn, T, d.xd.data(), &r.rs), miopenStatusSuccess);
  size_t in_bytes = 0, hidden_bytes = 0;
  EXPECT_EQ(miopenGetRNNInputTensorSize(h, rnn, T, d.xd.data(), &in_bytes), miopenStatusSuccess);
  EXPECT_EQ(miopenGetRNNHiddenTensorSize(h, rnn, T, d.xd.data(), &hidden_bytes),
            miopenStatusSuccess);
  size_t rows = 0;
  for (int b : kBatch)
    rows += static_cast<size_t>(b);
  const size_t state = static_cast<size_t>(kLayers * kDirs * kBatch[0] * kHidden);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  const auto drawn = [&](size_t n) {
    std::vector<float> v(n);
    for (float& e : v)
      e = u(rng);
    return v;
  };
  const auto x = drawn(rows * kInput), hx = drawn(state), cx = drawn(state),
             w = drawn(r.params / sizeof(float)), dy = drawn(rows * kDirs * kHidden),
             dhy = drawn(state), dcy = drawn(state);
  std::vector<char> ws(r.ws), rs(r.rs);
  r.y.assign(rows * kDirs * kHidden, NAN);
  r.hy.assign(state, NAN);
  r.cy.assign(state, NAN);
  EXPECT_EQ(
      miopenRNNForwardTraining(h, rnn, T, d.xd.data(), x.data(), d.h, hx.data(), d.h, cx.data(),
                               d.w, w.data(), d.yd.data(), r.y.data(), d.h, r.hy.data(), d.h,
                               r.cy.data(), ws.data(), r.ws, rs.data(), r.rs),
      miopenStatusSuccess);
  r.dx.assign(rows * kInput, NAN);
  r.dhx.assign(state, NAN);
  r.dcx.assign(state, NAN);
  EXPECT_EQ(miopenRNNBackwardData(h, rnn, T, d.yd.data(), r.y.data(), d.yd.data(), dy.data(), d.h,
                                  dhy.data(), d.h, dcy.data(), d.w, w.data(), d.h, hx.data(), d.h,
                                  cx.data(), d.xd.data(), r.dx.data(), d.h, r.dhx.data(), d.h,
                                  r.dcx.data(), ws.data(), r.ws, rs.data(), r.rs),
            miopenStatusSuccess);
  r.dw.assign(r.params / sizeof(float), 0.0f);
  EXPECT_EQ(
      miopenRNNBackwardWeights(h, rnn, T, d.xd.data(), x.data(), d.h, hx.data(), d.yd.data(),
                               r.y.data(), d.w, r.dw.data(), ws.data(), r.ws, rs.data(), r.rs),
      miopenStatusSuccess);
  r.y_inference.assign(rows * kDirs * kHidden, NAN);
  std::vector<float> hy2(state), cy2(state);
  EXPECT_EQ(miopenRNNForwardInference(h, rnn, T, d.xd.data(), x.data(), d.h, hx.data(), d.h,
                                      cx.data(), d.w, w.data(), d.yd.data(), r.y_inference.data(),
                                      d.h, hy2.data(), d.h, cy2.data(), ws.data(), r.ws),
            miopenStatusSuccess);
  return r;
}

void expect_same(const Results& a, const Results& b) {
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.ws, b.ws);
  EXPECT_EQ(a.rs, b.rs);
  for (const auto& [u, v] : {std::pair{&a.y, &b.y},
                             {&a.hy, &b.hy},
                             {&a.cy, &b.cy},
                             {&a.dx, &b.dx},
                             {&a.dhx, &b.dhx},
                             {&a.dcx, &b.dcx},
                             {&a.dw, &b.dw},
                             {&a.y_inference, &b.y_inference}}) {
    ASSERT_EQ(u->size(), v->size());
    for (size_t i = 0; i < u->size(); ++i) {
      ASSERT_FALSE(std::isnan((*u)[i])) << "an output element was not written";
      ASSERT_EQ((*u)[i], (*v)[i]) << "element " << i;
    }
  }
}

TEST(RnnPyTorchDescriptors, TrailingOnesGiveTheSameSizesAndBits) {
  Handle h;
  Rnn rnn;
  ASSERT_EQ(miopenSetRNNDescriptor(rnn, kHidden, kLayers, miopenRNNlinear, miopenRNNbidirection,
                                   miopenLSTM, miopenRNNwithBias, miopenRNNdefault, miopenFloat),
            miopenStatusSuccess);
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  Descriptors plain, packed, padded;
  make(plain, rnn, h, 0, 0, 1);
  make(packed, rnn, h, 1, 2, 3);  // PyTorch, packed input
  make(padded, rnn, h, 3, 2, 3);  // PyTorch, padded input
  const Results a = run_all(h, rnn, plain, seed);
  {
    SCOPED_TRACE("[batch, features, 1] steps");
    expect_same(a, run_all(h, rnn, packed, seed));
  }
  {
    SCOPED_TRACE("[batch, features, 1, 1, 1] steps");
    expect_same(a, run_all(h, rnn, padded, seed));
  }
}

TEST(RnnPyTorchDescriptors, TrailingLengthsOtherThanOneAreRejected) {
  Handle h;
  Rnn rnn;
  ASSERT_EQ(miopenSetRNNDescriptor(rnn, kHidden, kLayers, miopenRNNlinear, miopenRNNbidirection,
                                   miopenLSTM, miopenRNNwithBias, miopenRNNdefault, miopenFloat),
            miopenStatusSuccess);
  Tensor x(miopenFloat, {2, kInput, 2});
  miopenTensorDescriptor_t xd = x;
  size_t bytes = 0;
  expect_failure(miopenStatusBadParm, "miopenGetRNNParamsSize", "trailing lengths of 1 allowed",
                 [&] { return miopenGetRNNParamsSize(h, rnn, xd, &bytes, miopenFloat); });
  size_t ws = 0;
  expect_failure(miopenStatusBadParm, "miopenGetRNNWorkspaceSize", "trailing lengths of 1 allowed",
                 [&] { return miopenGetRNNWorkspaceSize(h, rnn, 1, &xd, &ws); });
}

}  // namespace
}  // namespace anydnn::test
