// The RNN reference's backward pass (reference/rnn_reference.cpp) against central differences of
// its own forward pass: every weight, input and initial-state gradient of small problems in every
// mode, bidirectional, stacked, with biases, skip input, dropout between layers and shrinking
// batches. The forward pass is checked against the library by every RNN test; this ties the
// backward one to the forward one without trusting the library (an error in how steps or rows are
// batched into products would show up here as a wrong gradient).
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>
#include <string>

#include "common_test_util.hpp"
#include "rnn_reference.hpp"

namespace anydnn {
namespace {

using V = std::vector<double>;

struct Case {
  const char* name;
  ref::RnnConfig c;
  size_t input;
  std::vector<size_t> batch;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

double dot(const V& a, const V& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    s += a[i] * b[i];
  return s;
}

class RnnReferenceGradients : public ::testing::TestWithParam<Case> {};

TEST_P(RnnReferenceGradients, MatchCentralDifferences) {
  const Case& k = GetParam();
  const bool lstm = k.c.mode == 2;
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  const auto draw = [&](size_t n) {
    V v(n);
    for (double& e : v)
      e = u(rng);
    return v;
  };
  size_t rows = 0;
  for (size_t b : k.batch)
    rows += b;
  const int D = k.c.bidirectional ? 2 : 1;
  const size_t H = static_cast<size_t>(k.c.hidden);
  const size_t state = static_cast<size_t>(k.c.layers) * D * k.batch[0] * H;
  V x = draw(rows * k.input), hx = draw(state), cx = lstm ? draw(state) : V{},
    w = draw(ref::rnn_weight_count(k.c, k.input));
  const V dy = draw(rows * D * H), dhy = draw(state), dcy = lstm ? draw(state) : V{};
  // The scalar whose gradients rnn_backward returns.
  const auto loss = [&] {
    const auto f = ref::rnn_forward(k.c, k.input, k.batch, x, hx, cx, w);
    return dot(f.y, dy) + dot(f.hy, dhy) + (lstm ? dot(f.cy, dcy) : 0.0);
  };
  const auto g = ref::rnn_backward(k.c, k.input, k.batch, x, hx, cx, w, dy, dhy, dcy);
  const auto check = [&](V& param, const V& grad, const char* what) {
    ASSERT_EQ(param.size(), grad.size()) << what;
    const double eps = 1e-6;
    for (size_t i = 0; i < param.size(); ++i) {
      const double keep = param[i];
      param[i] = keep + eps;
      const double up = loss();
      param[i] = keep - eps;
      const double down = loss();
      param[i] = keep;
      const double numeric = (up - down) / (2 * eps);
      ASSERT_NEAR(grad[i], numeric, 1e-6 * std::max(1.0, std::abs(numeric)))
          << what << "[" << i << "]";
    }
  };
  if (!k.c.skip_input || k.input == H) check(x, g.dx, "dx");
  check(hx, g.dhx, "dhx");
  if (lstm) check(cx, g.dcx, "dcx");
  check(w, g.dw, "dw");
}

const Case kCases[] = {
    {"relu_bias_shrinking", {0, 3, 1, false, false, true}, 2, {3, 2, 2, 1}},
    {"tanh_bidirectional_2layers", {1, 3, 2, true, false, true}, 2, {2, 2, 1}},
    {"lstm_bidirectional_shrinking", {2, 2, 2, true, false, true}, 3, {3, 3, 2, 1}},
    {"lstm_skip_input", {2, 3, 1, false, true, false}, 3, {2, 1}},
    {"gru_bias_2layers", {3, 3, 2, false, false, true}, 2, {3, 2, 1}},
    {"gru_bidirectional_skip", {3, 2, 1, true, true, true}, 2, {2, 2, 2}},
    {"lstm_dropout_3layers", {2, 3, 3, true, false, true, 0.4, 99, 2}, 2, {3, 2, 1}},
    {"relu_dropout_2layers", {0, 4, 2, false, false, false, 0.5, 7, 0}, 3, {2, 2}},
};

INSTANTIATE_TEST_SUITE_P(Reference, RnnReferenceGradients, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace anydnn
