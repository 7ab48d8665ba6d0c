// CTC loss through the public C API only: the descriptor calls, the workspace size, losses and
// gradients against the double reference (softmax applied and not, blank label not 0, shorter
// inputs), reproducible bytes, and bad input (status, one-line reason).
#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cmath>
#include <random>
#include <vector>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "ctc_reference.hpp"

namespace anydnn::test {
namespace {

struct CtcDesc {
  miopenCTCLossDescriptor_t d = nullptr;
  CtcDesc() { EXPECT_EQ(miopenCreateCTCLossDescriptor(&d), miopenStatusSuccess); }
  ~CtcDesc() { miopenDestroyCTCLossDescriptor(d); }
  operator miopenCTCLossDescriptor_t() const { return d; }
};

TEST(CtcApi, DescriptorRoundTripsWithMiopensDefaults) {
  CtcDesc d;
  miopenDataType_t t = miopenHalf;
  int blank = -1;
  bool softmax = false;
  ASSERT_EQ(miopenGetCTCLossDescriptor(d, &t, &blank, &softmax), miopenStatusSuccess);
  EXPECT_EQ(t, miopenFloat);
  EXPECT_EQ(blank, 0);
  EXPECT_TRUE(softmax);
  ASSERT_EQ(miopenSetCTCLossDescriptor(d, miopenFloat, 7, false), miopenStatusSuccess);
  ASSERT_EQ(miopenGetCTCLossDescriptor(d, &t, &blank, &softmax), miopenStatusSuccess);
  EXPECT_EQ(blank, 7);
  EXPECT_FALSE(softmax);
  // MIOpen skips the optional outputs when they are null.
  t = miopenHalf;
  ASSERT_EQ(miopenGetCTCLossDescriptor(d, &t, nullptr, nullptr), miopenStatusSuccess);
  EXPECT_EQ(t, miopenFloat);
  expect_failure(miopenStatusBadParm, "miopenGetCTCLossDescriptor", "dataType is a null pointer",
                 [&] { return miopenGetCTCLossDescriptor(d, nullptr, &blank, &softmax); });
  expect_failure(miopenStatusBadParm, "miopenSetCTCLossDescriptor", "invalid data type 42", [&] {
    return miopenSetCTCLossDescriptor(d, static_cast<miopenDataType_t>(42), 0, true);
  });
  expect_failure(miopenStatusBadParm, "miopenCreateCTCLossDescriptor", "null pointer",
                 [&] { return miopenCreateCTCLossDescriptor(nullptr); });
  Tensor wrong(miopenFloat, {2, 3, 4});
  expect_failure(miopenStatusBadParm, "miopenSetCTCLossDescriptor", "does not point to a live",
                 [&] {
                   return miopenSetCTCLossDescriptor(
                       reinterpret_cast<miopenCTCLossDescriptor_t>(wrong.d), miopenFloat, 0, true);
                 });
}

// One problem: T = 12, N = 3, C = 6; lengths 3, 0, 4 over inputs 12, 5, 9.
struct Problem {
  Tensor probs{miopenFloat, {12, 3, 6}};
  std::vector<int> labels = {1, 2, 2, 4, 5, 4, 1};
  std::vector<int> label_lengths = {3, 0, 4}, input_lengths = {12, 5, 9};
  static constexpr size_t kElems = 12 * 3 * 6;
};

TEST(CtcApi, WorkspaceSizeIsMiopens) {
  Handle h;
  CtcDesc d;
  Problem p;
  size_t ws = 0;
  ASSERT_EQ(miopenGetCTCLossWorkspaceSize(h, p.probs, p.probs, p.labels.data(),
                                          p.label_lengths.data(), p.input_lengths.data(),
                                          MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d, &ws),
            miopenStatusSuccess);
  // ints: 4N + total + N(2 max L + 1); floats: TNC + TN(2 max L + 1) + 2N(2 max L + 1).
  EXPECT_EQ(ws, 4u * ((12 + 7 + 27) + (216 + 324 + 54)));
}

TEST(CtcApi, LossesAndGradientsMatchTheReference) {
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  Handle h;
  Problem p;
  // Blank 4 is also a label of batch 2 (4 5 4 1): a degenerate input MIOpen accepts.
  for (const int blank : {0, 3, 4})
    for (const bool softmax : {true, false}) {
      SCOPED_TRACE("blank " + std::to_string(blank) + (softmax ? ", softmax" : ", log-probs"));
      CtcDesc d;
      ASSERT_EQ(miopenSetCTCLossDescriptor(d, miopenFloat, blank, softmax), miopenStatusSuccess);
      const std::vector<int> labels = p.labels;
      std::vector<float> x = random_floats(rng, Problem::kElems, -2.0f, 2.0f);
      if (!softmax)
        for (size_t r = 0; r < Problem::kElems / 6; ++r) {
          double s = 0.0;
          for (int c = 0; c < 6; ++c)
            s += std::exp(x[r * 6 + c]);
          for (int c = 0; c < 6; ++c)
            x[r * 6 + c] = static_cast<float>(x[r * 6 + c] - std::log(s));
        }
      size_t ws = 0;
      ASSERT_EQ(miopenGetCTCLossWorkspaceSize(h, p.probs, p.probs, labels.data(),
                                              p.label_lengths.data(), p.input_lengths.data(),
                                              MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d, &ws),
                miopenStatusSuccess);
      std::vector<uint8_t> work(ws, 0xff);
      std::vector<float> losses(3, NAN), grads(Problem::kElems, NAN), losses2(3), grads2(grads);
      for (auto* out : {&losses, &losses2}) {
        std::vector<float>& g = out == &losses ? grads : grads2;
        ASSERT_EQ(miopenCTCLoss(h, p.probs, x.data(), labels.data(), p.label_lengths.data(),
                                p.input_lengths.data(), out->data(), p.probs, g.data(),
                                MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d, work.data(), ws),
                  miopenStatusSuccess);
      }
      EXPECT_EQ(losses, losses2);
      EXPECT_EQ(grads, grads2);
      const ref::CtcResult want =
          ref::ctc_loss({blank, softmax}, {12, 3, 6}, std::vector<double>(x.begin(), x.end()),
                        labels, p.label_lengths, p.input_lengths);
      for (int n = 0; n < 3; ++n)
        EXPECT_NEAR(losses[n], want.losses[n], 1e-4 * std::max(1.0, std::abs(want.losses[n])));
      for (size_t i = 0; i < Problem::kElems; ++i)
        ASSERT_NEAR(grads[i], want.gradients[i], 5e-4 * std::max(1.0, std::abs(want.gradients[i])))
            << "element " << i;
      // Batch 1 (input 5) and 2 (input 9): rows past the input are 0.
      EXPECT_EQ(grads[(5 * 3 + 1) * 6], 0.0f);
      EXPECT_EQ(grads[(11 * 3 + 2) * 6 + 5], 0.0f);
    }
}

TEST(CtcApi, BadInputFailsWithAReason) {
  Handle h;
  CtcDesc d;
  Problem p;
  size_t ws = 0;
  const auto algo = MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC;
  auto size_of = [&](miopenTensorDescriptor_t probs, miopenTensorDescriptor_t grads,
                     const std::vector<int>& labels, const int* ll, const int* il) {
    return miopenGetCTCLossWorkspaceSize(h, probs, grads, labels.data(), ll, il, algo, d, &ws);
  };
  const int* ll = p.label_lengths.data();
  const int* il = p.input_lengths.data();
  const char* fn = "miopenGetCTCLossWorkspaceSize";
  Tensor other(miopenFloat, {12, 3, 7}), half(miopenHalf, {12, 3, 6}),
      four(miopenFloat, {12, 3, 6, 1});
  expect_failure(miopenStatusBadParm, fn, "dimensions do not match",
                 [&] { return size_of(p.probs, other, p.labels, ll, il); });
  expect_failure(miopenStatusNotImplemented, fn, "CTC loss supports float data",
                 [&] { return size_of(half, half, p.labels, ll, il); });
  expect_failure(miopenStatusBadParm, fn, "3-D",
                 [&] { return size_of(four, four, p.labels, ll, il); });
  expect_failure(miopenStatusBadParm, fn, "Wrong label id at batch 2", [&] {
    return size_of(p.probs, p.probs, {1, 2, 2, 4, 6, 4, 1}, ll, il);
  });
  const std::vector<int> too_long = {12, 13, 9};
  expect_failure(miopenStatusBadParm, fn, "Wrong input time step",
                 [&] { return size_of(p.probs, p.probs, p.labels, ll, too_long.data()); });
  // 2 2 in batch 0 needs 4 steps for 3 labels.
  const std::vector<int> short_input = {3, 5, 9};
  expect_failure(miopenStatusBadParm, fn, "label length exceeds input time step",
                 [&] { return size_of(p.probs, p.probs, p.labels, ll, short_input.data()); });
  expect_failure(miopenStatusBadParm, fn, "labelLengths is a null pointer",
                 [&] { return size_of(p.probs, p.probs, p.labels, nullptr, il); });
  expect_failure(miopenStatusBadParm, fn, "invalid CTC loss algorithm", [&] {
    return miopenGetCTCLossWorkspaceSize(h, p.probs, p.probs, p.labels.data(), ll, il,
                                         static_cast<miopenCTCLossAlgo_t>(1), d, &ws);
  });
  ASSERT_EQ(size_of(p.probs, p.probs, p.labels, ll, il), miopenStatusSuccess);
  std::vector<float> x(Problem::kElems, 0.0f), losses(3), grads(Problem::kElems);
  std::vector<uint8_t> work(ws);
  auto run = [&](const void* probs, void* out, size_t size) {
    return miopenCTCLoss(h, p.probs, probs, p.labels.data(), ll, il, out, p.probs, grads.data(),
                         algo, d, work.data(), size);
  };
  expect_failure(miopenStatusBadParm, "miopenCTCLoss", "workSpaceSize",
                 [&] { return run(x.data(), losses.data(), ws - 4); });
  expect_failure(miopenStatusBadParm, "miopenCTCLoss", "probs is a null pointer",
                 [&] { return run(nullptr, losses.data(), ws); });
  expect_failure(miopenStatusBadParm, "miopenCTCLoss", "losses is a null pointer",
                 [&] { return run(x.data(), nullptr, ws); });
  EXPECT_EQ(run(x.data(), losses.data(), ws), miopenStatusSuccess);
}

}  // namespace
}  // namespace anydnn::test
