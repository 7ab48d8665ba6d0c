// The legacy RNN API's padded I/O (miopenSetRNNPaddingMode(miopenRNNIOWithPadding)): x, y, dx
// and dy hold every step padded to the first step's batch while xDesc[t] still says batch[t].
// Every pass must give the packed call's results on the valid rows, leave the padding rows of
// the outputs alone, and ask for the packed copies in its workspace (MIOpen's GetWorkspaceSize).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

TEST(RnnPaddedIo, EveryPassMatchesThePackedCall) {
  Handle hd;
  const int I = 5, H = 6, L = 2, D = 2;
  const std::vector<int> batch = {4, 3, 3, 1};
  const int T = static_cast<int>(batch.size()), B0 = batch[0];
  std::vector<Tensor> xs, ys;
  xs.reserve(batch.size());  // Tensor owns a descriptor: no reallocation copies
  ys.reserve(batch.size());
  std::vector<miopenTensorDescriptor_t> xd, yd;
  size_t rows = 0;
  for (int b : batch) {
    xd.push_back(xs.emplace_back(miopenFloat, std::vector<int>{b, I}));
    yd.push_back(ys.emplace_back(miopenFloat, std::vector<int>{b, D * H}));
    rows += b;
  }
  Tensor hdesc(miopenFloat, {L * D, B0, H});
  // Packed row r of step t, sequence i <-> padded row t * B0 + i.
  auto pad = [&](const std::vector<float>& packed, size_t width, float fill) {
    std::vector<float> out(static_cast<size_t>(T) * B0 * width, fill);
    size_t r = 0;
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < batch[t]; ++i, ++r)
        std::copy_n(packed.begin() + r * width, width, out.begin() + (t * B0 + i) * width);
    return out;
  };
  struct Result {
    std::vector<float> y, hy, cy, dx, dhx, dcx, dw;
  };
  std::mt19937 rng(7);
  Rnn packed_r, padded_r;
  for (Rnn* r : {&packed_r, &padded_r})
    ASSERT_EQ(miopenSetRNNDescriptor(*r, H, L, miopenRNNlinear, miopenRNNbidirection, miopenLSTM,
                                     miopenRNNwithBias, miopenRNNdefault, miopenFloat),
              miopenStatusSuccess);
  ASSERT_EQ(miopenSetRNNPaddingMode(padded_r, miopenRNNIOWithPadding), miopenStatusSuccess);
  Tensor w;
  ASSERT_EQ(miopenGetRNNParamsDescriptor(hd, packed_r, xd[0], w, miopenFloat), miopenStatusSuccess);
  size_t wb = 0, ws_packed = 0, ws_padded = 0, rs_packed = 0, rs_padded = 0;
  miopenGetTensorNumBytes(w, &wb);
  ASSERT_EQ(miopenGetRNNWorkspaceSize(hd, packed_r, T, xd.data(), &ws_packed), miopenStatusSuccess);
  ASSERT_EQ(miopenGetRNNWorkspaceSize(hd, padded_r, T, xd.data(), &ws_padded), miopenStatusSuccess);
  ASSERT_EQ(miopenGetRNNTrainingReserveSize(hd, packed_r, T, xd.data(), &rs_packed),
            miopenStatusSuccess);
  ASSERT_EQ(miopenGetRNNTrainingReserveSize(hd, padded_r, T, xd.data(), &rs_padded),
            miopenStatusSuccess);
  // MIOpen adds a packed x and a packed y buffer; the reserve does not change.
  EXPECT_EQ(ws_padded, ws_packed + rows * (I + D * H) * sizeof(float));
  EXPECT_EQ(rs_padded, rs_packed);

  const size_t state = static_cast<size_t>(L) * D * B0 * H;
  const auto wv = random_floats(rng, wb / 4), x = random_floats(rng, rows * I),
             hx = random_floats(rng, state), cx = random_floats(rng, state),
             dy = random_floats(rng, rows * D * H), dhy = random_floats(rng, state),
             dcy = random_floats(rng, state);
  const float kUntouched = 12345.0f;
  auto run = [&](miopenRNNDescriptor_t r, bool padded) {
    const size_t ws_bytes = padded ? ws_padded : ws_packed;
    std::vector<uint8_t> wsb(ws_bytes), rsb(rs_packed);
    const auto xin = padded ? pad(x, I, 0.0f) : x, dyin = padded ? pad(dy, D * H, 0.0f) : dy;
    const size_t out_rows = padded ? static_cast<size_t>(T) * B0 : rows;
    Result res{std::vector<float>(out_rows * D * H, kUntouched),
               std::vector<float>(state),
               std::vector<float>(state),
               std::vector<float>(out_rows * I, kUntouched),
               std::vector<float>(state),
               std::vector<float>(state),
               std::vector<float>(wb / 4)};
    EXPECT_EQ(miopenRNNForwardTraining(hd, r, T, xd.data(), xin.data(), hdesc, hx.data(), hdesc,
                                       cx.data(), w, wv.data(), yd.data(), res.y.data(), hdesc,
                                       res.hy.data(), hdesc, res.cy.data(), wsb.data(), ws_bytes,
                                       rsb.data(), rsb.size()),
              miopenStatusSuccess);
    EXPECT_EQ(
        miopenRNNBackwardData(hd, r, T, yd.data(), res.y.data(), yd.data(), dyin.data(), hdesc,
                              dhy.data(), hdesc, dcy.data(), w, wv.data(), hdesc, hx.data(), hdesc,
                              cx.data(), xd.data(), res.dx.data(), hdesc, res.dhx.data(), hdesc,
                              res.dcx.data(), wsb.data(), ws_bytes, rsb.data(), rsb.size()),
        miopenStatusSuccess);
    EXPECT_EQ(miopenRNNBackwardWeights(hd, r, T, xd.data(), xin.data(), hdesc, hx.data(), yd.data(),
                                       res.y.data(), w, res.dw.data(), wsb.data(), ws_bytes,
                                       rsb.data(), rsb.size()),
              miopenStatusSuccess);
    return res;
  };
  const Result want = run(packed_r, false), got = run(padded_r, true);
  // The padded outputs are the packed ones padded, with the padding rows left alone.
  EXPECT_EQ(got.y, pad(want.y, D * H, kUntouched));
  EXPECT_EQ(got.dx, pad(want.dx, I, kUntouched));
  EXPECT_EQ(got.hy, want.hy);
  EXPECT_EQ(got.cy, want.cy);
  EXPECT_EQ(got.dhx, want.dhx);
  EXPECT_EQ(got.dcx, want.dcx);
  EXPECT_EQ(got.dw, want.dw);

  // The workspace must include the packed copies.
  std::vector<uint8_t> small(ws_padded - 1), rsb(rs_packed);
  std::vector<float> y(static_cast<size_t>(T) * B0 * D * H), hy(state), cy(state);
  const auto xin = pad(x, I, 0.0f);
  expect_failure(miopenStatusBadParm, "miopenRNNForwardTraining", "workSpaceNumBytes", [&] {
    return miopenRNNForwardTraining(hd, padded_r, T, xd.data(), xin.data(), hdesc, hx.data(), hdesc,
                                    cx.data(), w, wv.data(), yd.data(), y.data(), hdesc, hy.data(),
                                    hdesc, cy.data(), small.data(), small.size(), rsb.data(),
                                    rsb.size());
  });
}

}  // namespace
}  // namespace anydnn::test
