// The CTC loss solver tests' problem list and checks, shared by the CPU suite
// (unit/ctc_solvers_test.cpp) and the GPU suite (gpu/ctc_solvers_gpu_test.cpp).
//
// tests/problems/ctc_problems.txt holds MIOpenDriver ctc lines; a line without -m runs with the
// softmax applied and not. After a '|': probs=t,n,c and grads=t,n,c strides (default packed
// [T, N, C]) and `repeats` (each label sequence one label repeated). Each case draws fresh
// labels (never the blank; adjacent repeats only as far as the input lengths allow) and inputs:
// activations uniform in [-2, 2] with the softmax applied, log-softmax values of such
// activations without (MIOpen then reads log-probabilities). Losses and gradients are
// NaN-poisoned and the workspace filled with 0xff first; every loss and gradient element must
// match the double reference and no byte outside the gradients' elements may change.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common_test_util.hpp"
#include "core/tensor_descriptor.hpp"
#include "ctc/ctc_problem.hpp"
#include "ctc_reference.hpp"
#include "ctc_spec.hpp"
#include "host_buffer.hpp"

namespace anydnn::test {

struct CtcCase {
  std::string line;  // with the softmax setting it runs, for traces
  driver::CtcSpec spec;
  TensorDescriptor probs, grads;
  bool repeats = false;
};

struct CtcHostBuffers {
  driver::HostTensor probs, grads;
  std::vector<float> losses;
  std::vector<uint8_t> workspace;
};

using CtcRunner = std::function<void(const CtcLossProblem&, CtcHostBuffers&)>;

inline std::vector<size_t> ctc_split(const std::string& s) {
  std::vector<size_t> v;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');)
    v.push_back(std::stoul(t));
  return v;
}

inline std::vector<CtcCase> load_ctc_cases() {
  std::vector<CtcCase> out;
  for (const std::string& full : load_problem_lines("ctc_problems.txt")) {
    const auto bar = full.find('|');
    const std::string line = full.substr(0, bar);
    CtcCase c;
    if (const auto err = driver::parse_ctc_line(line, c.spec)) {
      ADD_FAILURE() << line << ": " << *err;
      continue;
    }
    const std::vector<size_t> lens = {static_cast<size_t>(c.spec.max_time()),
                                      static_cast<size_t>(c.spec.batch),
                                      static_cast<size_t>(c.spec.classes())};
    std::vector<size_t> ps = {lens[1] * lens[2], lens[2], 1}, gs = ps;
    if (bar != std::string::npos) {
      std::stringstream ss(full.substr(bar + 1));
      for (std::string kv; ss >> kv;) {
        const auto eq = kv.find('=');
        const std::string k = kv.substr(0, eq);
        if (k == "repeats")
          c.repeats = true;
        else if (k == "probs")
          ps = ctc_split(kv.substr(eq + 1));
        else if (k == "grads")
          gs = ctc_split(kv.substr(eq + 1));
        else
          ADD_FAILURE() << full << ": unknown key " << k;
      }
    }
    c.probs = TensorDescriptor(miopenFloat, lens, ps);
    c.grads = TensorDescriptor(miopenFloat, lens, gs);
    const bool one = (" " + line + " ").find(" -m ") != std::string::npos;
    for (const bool sm : {true, false}) {
      if (one && sm != c.spec.apply_softmax) continue;
      CtcCase e = c;
      e.spec.apply_softmax = sm;
      e.line = full + (sm ? " (softmax applied)" : " (log-probabilities)");
      out.push_back(e);
    }
  }
  return out;
}

// Labels in [0, C) other than the (clamped) blank. With `repeats` each sequence is one label;
// otherwise random, a repeat redrawn while the sequence would not fit its input length.
inline std::vector<int> draw_ctc_labels(const CtcCase& c, std::mt19937& rng) {
  const int C = c.spec.classes(), blank = std::clamp(c.spec.blank, 0, C - 1);
  std::uniform_int_distribution<int> pick(0, C - 2);
  auto draw = [&] {
    const int v = pick(rng);
    return v >= blank ? v + 1 : v;
  };
  std::vector<int> labels;
  for (int n = 0; n < c.spec.batch; ++n) {
    const int L = c.spec.label_lengths[n], T = c.spec.input_lengths[n];
    const int first = draw();
    int repeats = 0;
    for (int j = 0; j < L; ++j) {
      int v = c.repeats ? first : draw();
      if (j > 0 && v == labels.back()) {
        // Only one label class (C = 2) leaves no choice; the list keeps those problems valid.
        while (!c.repeats && C > 2 && L + repeats + 1 > T && v == labels.back())
          v = draw();
        if (v == labels.back()) ++repeats;
      }
      labels.push_back(v);
    }
  }
  return labels;
}

inline CtcLossProblem ctc_problem(const CtcCase& c, const std::vector<int>& labels) {
  CtcLossDesc d;
  d.blank_label_id = c.spec.blank;
  d.apply_softmax_layer = c.spec.apply_softmax;
  return CtcLossProblem(c.probs, c.grads, labels.data(), c.spec.label_lengths.data(),
                        c.spec.input_lengths.data(), MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, d);
}

inline driver::HostTensor ctc_host_tensor(const TensorDescriptor& d) {
  driver::HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

inline size_t ctc_offset(const TensorDescriptor& d, size_t t, size_t n, size_t c) {
  return t * d.strides()[0] + n * d.strides()[1] + c * d.strides()[2];
}

// Random inputs as the case's mode reads them; returns them in packed [T, N, C] order as stored
// (float-rounded).
inline std::vector<double> fill_ctc_probs(const CtcCase& c, driver::HostTensor& probs,
                                          std::mt19937& rng) {
  const size_t T = c.probs.lens()[0], N = c.probs.lens()[1], C = c.probs.lens()[2];
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<double> logical(T * N * C);
  for (size_t r = 0; r < T * N; ++r) {
    std::vector<double> x(C);
    for (auto& v : x)
      v = u(rng);
    if (!c.spec.apply_softmax) {
      const double m = *std::max_element(x.begin(), x.end());
      double s = 0.0;
      for (double v : x)
        s += std::exp(v - m);
      for (auto& v : x)
        v = v - m - std::log(s);
    }
    for (size_t k = 0; k < C; ++k) {
      probs.set(ctc_offset(c.probs, r / N, r % N, k), x[k]);
      logical[r * C + k] = probs.get(ctc_offset(c.probs, r / N, r % N, k));
    }
  }
  return logical;
}

// Losses: relative 1e-4 (float log-space sums over up to ~60 steps); gradients: 5e-4, absolute
// up to magnitude 1 (with the softmax they are differences of probabilities in [-1, 1]) and
// relative beyond (without it, MIOpen's gradient w.r.t. p is -occupancy / p, often far below -1).
constexpr double kCtcLossTol = 1e-4, kCtcGradTol = 5e-4;

inline void check_ctc(const CtcCase& c, std::mt19937& rng, const CtcRunner& run) {
  const std::vector<int> labels = draw_ctc_labels(c, rng);
  const CtcLossProblem p = ctc_problem(c, labels);
  SCOPED_TRACE(c.line + " [" + p.key() + "]");
  CtcHostBuffers b;
  b.probs = ctc_host_tensor(c.probs);
  b.grads = ctc_host_tensor(c.grads);
  const std::vector<double> in = fill_ctc_probs(c, b.probs, rng);
  b.grads.poison();
  const driver::HostTensor prior = b.grads;
  b.losses.assign(p.batch(), std::numeric_limits<float>::quiet_NaN());
  b.workspace.assign(p.workspace_size(), 0xff);
  const std::array<size_t, 3> lens = {c.probs.lens()[0], c.probs.lens()[1], c.probs.lens()[2]};
  const ref::CtcResult want = ref::ctc_loss({c.spec.blank, c.spec.apply_softmax}, lens, in, labels,
                                            c.spec.label_lengths, c.spec.input_lengths);
  run(p, b);
  for (size_t n = 0; n < lens[1]; ++n) {
    const double w = want.losses[n], g = b.losses[n];
    EXPECT_TRUE(std::abs(w - g) <= kCtcLossTol * std::max(1.0, std::abs(w)))
        << "loss " << n << ": want " << w << ", got " << g;
  }
  std::set<size_t> written;
  for (size_t t = 0; t < lens[0]; ++t)
    for (size_t n = 0; n < lens[1]; ++n)
      for (size_t k = 0; k < lens[2]; ++k) {
        const size_t o = ctc_offset(c.grads, t, n, k);
        written.insert(o);
        const double w = want.gradients[(t * lens[1] + n) * lens[2] + k], g = b.grads.get(o);
        if (!(std::abs(w - g) <= kCtcGradTol * std::max(1.0, std::abs(w)))) {
          ADD_FAILURE() << "gradient (t " << t << ", n " << n << ", c " << k << "): want " << w
                        << ", got " << g << ", tolerance " << kCtcGradTol;
          return;
        }
      }
  for (size_t e = 0; e < b.grads.elements(); ++e)
    if (written.count(e) == 0 && std::memcmp(&b.grads.bytes[e * 4], &prior.bytes[e * 4], 4) != 0) {
      ADD_FAILURE() << "padding element " << e << " of the gradients was written";
      return;
    }
}

}  // namespace anydnn::test
