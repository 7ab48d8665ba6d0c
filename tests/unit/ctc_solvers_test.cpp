// Every CPU CTC loss solver, alone, on every problem of tests/problems/ctc_problems.txt it
// declares applicable (softmax applied and not), against the double reference; outputs are
// poisoned first (tests/ctc_test_cases.hpp). Plus the reference's gradients against finite
// differences of its losses, and the problem's validation, key and workspace size.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "ctc/ctc_solver.hpp"
#include "ctc_test_cases.hpp"
#include "log_decoder.hpp"

namespace anydnn {
namespace {

std::vector<std::string> every_cpu_ctc_solver() {
  Config cfg;
  const auto backend = make_cpu_backend(cfg);
  std::vector<std::string> out;
  for (const auto& e : backend->solvers<CtcLossSolver>().entries())
    out.emplace_back(e.solver->name());
  return out;
}

class CtcLossSolverAlone : public ::testing::TestWithParam<std::string> {};

// One test per solver, named after it (--gtest_filter='*CtcLossAlphaBeta*' runs one).
TEST_P(CtcLossSolverAlone, MatchesReferenceOnEveryProblemItTakes) {
  const std::string& solver = GetParam();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  Config cfg;
  cfg.num_threads = 2;
  auto backend = make_cpu_backend(cfg);
  const ExecutionContext ctx{cfg, *backend};
  const auto* entry = backend->solvers<CtcLossSolver>().find(solver);
  ASSERT_NE(entry, nullptr);
  const CtcLossSolver& s = *entry->solver;
  const test::CtcRunner run = [&](const CtcLossProblem& p, test::CtcHostBuffers& b) {
    CtcLossBuffers cb;
    cb.probs = b.probs.data();
    cb.losses = b.losses.data();
    cb.gradients = b.grads.data();
    cb.workspace = b.workspace.data();
    s.run(ctx, p, cb);
  };
  int ran = 0;
  for (const test::CtcCase& c : test::load_ctc_cases()) {
    const std::vector<int> labels = test::draw_ctc_labels(c, rng);
    const Applicability a = s.applicable(ctx, test::ctc_problem(c, labels));
    // Promise: the one solver of the family takes every float problem.
    EXPECT_TRUE(a) << c.line << ": " << solver << " rejects it: " << a.reason;
    if (!a) continue;
    test::check_ctc(c, rng, run);
    ++ran;
  }
  EXPECT_GT(ran, 0) << solver << " takes no problem of the list";
}

INSTANTIATE_TEST_SUITE_P(Solvers, CtcLossSolverAlone, ::testing::ValuesIn(every_cpu_ctc_solver()),
                         [](const auto& info) { return info.param; });

// The oracle itself: its gradients are the derivatives of its losses (central differences in
// double). With the softmax applied they are d loss / d activation; without, MIOpen's gradient is
// with respect to p = exp(x), so d loss / dx = gradient * exp(x). Time steps past an input
// length have gradient 0 and change nothing.
TEST(CtcReference, GradientsMatchFiniteDifferences) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const std::array<size_t, 3> lens = {7, 3, 5};
  const std::vector<int> label_lengths = {2, 3, 0}, input_lengths = {7, 5, 4};
  // Batch 1 has a repeat (3 3), blank 2 is not class 0, and batch 0's second label is the
  // blank itself (alpha and beta must still agree).
  const std::vector<int> labels = {1, 2, 3, 3, 0};
  for (const bool softmax : {true, false}) {
    SCOPED_TRACE(softmax ? "softmax applied" : "log-probabilities");
    const ref::CtcDesc d{2, softmax};
    std::vector<double> x(lens[0] * lens[1] * lens[2]);
    for (auto& v : x)
      v = softmax ? u(rng) : -1.0 + 0.3 * u(rng);
    const ref::CtcResult r = ref::ctc_loss(d, lens, x, labels, label_lengths, input_lengths);
    for (double l : r.losses)
      EXPECT_GT(l, 0.0);
    const double h = 1e-6;
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t n = (i / lens[2]) % lens[1];
      std::vector<double> xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      const double fd =
          (ref::ctc_loss(d, lens, xp, labels, label_lengths, input_lengths).losses[n] -
           ref::ctc_loss(d, lens, xm, labels, label_lengths, input_lengths).losses[n]) /
          (2 * h);
      const double g = softmax ? r.gradients[i] : r.gradients[i] * std::exp(x[i]);
      EXPECT_NEAR(g, fd, 1e-6 * std::max(1.0, std::abs(fd))) << "element " << i;
    }
  }
  // A known value: one time step, one label: loss = -log p(label), gradient p - onehot.
  const ref::CtcResult one = ref::ctc_loss({0, true}, {1, 1, 3}, {0.0, 0.0, 0.0}, {2}, {1}, {1});
  EXPECT_NEAR(one.losses[0], std::log(3.0), 1e-12);
  EXPECT_NEAR(one.gradients[2], 1.0 / 3 - 1.0, 1e-12);
  EXPECT_NEAR(one.gradients[0], 1.0 / 3, 1e-12);
}

miopenStatus_t ctc_status(const TensorDescriptor& probs, const TensorDescriptor& grads,
                          const std::vector<int>& labels, const std::vector<int>& ll,
                          const std::vector<int>& il, int blank = 0) {
  try {
    CtcLossDesc d;
    d.blank_label_id = blank;
    CtcLossProblem(probs, grads, labels.data(), ll.data(), il.data(),
                   MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d);
  } catch (const Error& e) {
    return e.status();
  }
  return miopenStatusSuccess;
}

TEST(CtcLossProblem, ValidatesAndPrintsMiopensLogLineAndWorkspaceSize) {
  const TensorDescriptor probs(miopenFloat, {20, 4, 10});
  const std::vector<int> labels(20, 3), ll = {5, 5, 5, 5}, il = {20, 20, 20, 20};
  CtcLossDesc d;
  d.blank_label_id = 0;
  const CtcLossProblem p(probs, probs, labels.data(), ll.data(), il.data(),
                         MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d);
  EXPECT_EQ(p.key(), "ctc -a 0 -b 0 -c 9 -m 1 -n 4 -l 5,5,5,5 -k 20,20,20,20");
  EXPECT_EQ(p.log_args(), " ctc  -a 0 -b 0 -c 9 -m 1 -n 4 -l 5,5,5,5 -k 20,20,20,20");
  EXPECT_EQ(p.repeats(), std::vector<int>({4, 4, 4, 4}));
  EXPECT_EQ(p.max_s(), 11);
  // MIOpen's formula: ints 4N + total + N(2L+1), floats TNC + TN(2L+1) + 2N(2L+1), 4 bytes each.
  const size_t ints = 16 + 20 + 4 * 11, floats = 800 + 20 * 4 * 11 + 2 * 4 * 11;
  EXPECT_EQ(p.workspace_size(), 4 * (ints + floats));
  EXPECT_EQ(p.ws_float_logp(), ints);

  const TensorDescriptor small(miopenFloat, {20, 4, 9}), half(miopenHalf, {20, 4, 10}),
      four(miopenFloat, {20, 4, 10, 1}), overlap(miopenFloat, {20, 4, 10}, {1, 1, 1});
  const std::vector<int> ok = {1, 2, 1, 2, 1};
  EXPECT_EQ(ctc_status(probs, probs, ok, {2, 1, 1, 1}, {5, 5, 5, 5}), miopenStatusSuccess);
  EXPECT_EQ(ctc_status(probs, small, ok, {2, 1, 1, 1}, {5, 5, 5, 5}), miopenStatusBadParm);
  EXPECT_EQ(ctc_status(half, half, ok, {2, 1, 1, 1}, {5, 5, 5, 5}), miopenStatusNotImplemented);
  EXPECT_EQ(ctc_status(probs, half, ok, {2, 1, 1, 1}, {5, 5, 5, 5}), miopenStatusNotImplemented);
  const TensorDescriptor int32s(miopenInt32, {20, 4, 10});
  EXPECT_EQ(ctc_status(int32s, int32s, ok, {2, 1, 1, 1}, {5, 5, 5, 5}), miopenStatusBadParm);
  EXPECT_EQ(ctc_status(four, four, ok, {2, 1, 1, 1}, {5, 5, 5, 5}), miopenStatusBadParm);
  EXPECT_EQ(ctc_status(probs, overlap, ok, {2, 1, 1, 1}, {5, 5, 5, 5}), miopenStatusBadParm);
  // An input length over the time steps; zero; a label id = classes; negative; a negative
  // label length; labels (3 3 3: two repeats) needing more steps than the input has.
  EXPECT_EQ(ctc_status(probs, probs, ok, {2, 1, 1, 1}, {5, 21, 5, 5}), miopenStatusBadParm);
  EXPECT_EQ(ctc_status(probs, probs, ok, {2, 1, 1, 1}, {5, 0, 5, 5}), miopenStatusBadParm);
  EXPECT_EQ(ctc_status(probs, probs, {1, 10, 1, 2, 1}, {2, 1, 1, 1}, {5, 5, 5, 5}),
            miopenStatusBadParm);
  EXPECT_EQ(ctc_status(probs, probs, {1, -1, 1, 2, 1}, {2, 1, 1, 1}, {5, 5, 5, 5}),
            miopenStatusBadParm);
  EXPECT_EQ(ctc_status(probs, probs, ok, {2, -1, 1, 1}, {5, 5, 5, 5}), miopenStatusBadParm);
  EXPECT_EQ(ctc_status(probs, probs, {3, 3, 3, 1}, {3, 1, 0, 0}, {4, 5, 5, 5}),
            miopenStatusBadParm);
  EXPECT_EQ(ctc_status(probs, probs, {3, 3, 3, 1}, {3, 1, 0, 0}, {5, 5, 5, 5}),
            miopenStatusSuccess);
  // The blank id is MIOpen's kernel's: clamped into the classes.
  CtcLossDesc far;
  far.blank_label_id = 42;
  EXPECT_EQ(CtcLossProblem(probs, probs, labels.data(), ll.data(), il.data(),
                           MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, far)
                .blank(),
            9);
}

// MIOpen's logged line (its spacing, a HIP prefix) decodes to the key; the API block of the call
// (lengths are host pointers there) is a warning, not a command.
TEST(CtcLogDecoder, DecodesMiopensCommandLineAndWarnsOnTheBlock) {
  driver::LogDecoder d;
  d.feed_text(
      "MIOpen(HIP): Command [miopenCTCLoss] ./bin/MIOpenDriver  ctc  -a 0 -b 3 -c 9 -m 0 -n 2 "
      "-l 5,4 -k 20,18\n"
      "MIOpen(HIP): miopenStatus_t miopenCTCLoss(const miopenTensorDescriptor_t, ...){\n"
      "MIOpen(HIP): \tprobsDesc = 20, 2, 10\n"
      "MIOpen(HIP): \tctcLossDesc = 1, \n"
      "MIOpen(HIP): }\n");
  const driver::DecodeResult r = d.finish();
  ASSERT_EQ(r.commands.size(), 1u);
  EXPECT_EQ(r.commands[0].command, "ctc -a 0 -b 3 -c 9 -m 0 -n 2 -l 5,4 -k 20,18");
  std::string err;
  EXPECT_EQ(
      driver::decode_command_line("./bin/MIOpenDriver ctc -n 3 -l 2 -k 7,8 -V 1 -t 1", false, &err),
      "ctc -a 0 -b 0 -c 9 -m 1 -n 3 -l 2,2,2 -k 7,8,8");
  EXPECT_EQ(driver::decode_command_line("MIOpenDriver ctc -n 2 -l x", false, &err), "");
  EXPECT_NE(err.find("-l"), std::string::npos) << err;
}

}  // namespace
}  // namespace anydnn
