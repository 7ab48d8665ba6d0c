// The activation solver tests' problem list and checks, shared by the CPU suite
// (unit/activation_solvers_test.cpp) and the GPU suite (gpu/activation_solvers_gpu_test.cpp).
//
// tests/problems/activation_problems.txt holds MIOpenDriver activ lines; a line without -m runs
// every mode (with alpha 0.7, beta 1.3, gamma 2, none MIOpen's default 1), a line with -m only
// that mode with its -A -B -G. After a '|' come shapes the driver cannot express:
//   lens=AxBx..   logical lengths (1-D..5-D), replacing -n -c [-D] -H -W
//   x=s,s,..      x's strides (default packed in the line's layout); y= likewise;
//   dx=, dy=      backward's dx and dy strides (default x's and y's)
//   ylens=..      y's (and dy's, dx's) lengths when they differ from x's (equal counts)
// Each case runs forward and backward, plain (alpha 1, beta 0: the output is NaN-poisoned first)
// and blended (alpha 0.75, beta 0.5 over random prior values), on fresh random inputs drawn
// away from each mode's kinks; every logical element must match the double reference and every
// byte outside the output's elements (padding) must be left as it was.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "activ_spec.hpp"
#include "activation/activation_problem.hpp"
#include "activation_reference.hpp"
#include "common_test_util.hpp"
#include "core/tensor_descriptor.hpp"
#include "host_buffer.hpp"

namespace anydnn::test {

struct ActivCase {
  std::string line;  // with the mode it runs, for traces
  ref::ActivationDesc desc;
  TensorDescriptor x, y, dx, dy;
};

// Host copies of one call's tensors; `out` is y (forward) or dx (backward), holding the prior
// output (blended) or NaN (plain).
struct ActivHostBuffers {
  driver::HostTensor x, y, dy, out;
};

// Runs the problem on the tensors (moving them to its device and `out` back).
using ActivRunner =
    std::function<void(const ActivationProblem&, ActivHostBuffers&, float alpha, float beta)>;

inline std::vector<size_t> split_sizes(const std::string& s, char sep) {
  std::vector<size_t> v;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, sep);)
    v.push_back(std::stoul(t));
  return v;
}

inline std::vector<ActivCase> load_activation_cases() {
  std::vector<ActivCase> out;
  for (const std::string& full : load_problem_lines("activation_problems.txt")) {
    const auto bar = full.find('|');
    const std::string line = full.substr(0, bar);
    driver::ActivSpec spec;
    if (const auto err = driver::parse_activ_line(line, spec)) {
      ADD_FAILURE() << line << ": " << *err;
      continue;
    }
    std::vector<size_t> lens(spec.lens.begin(), spec.lens.end()), ylens;
    std::vector<size_t> xs, ys, dxs, dys;
    if (bar != std::string::npos) {
      std::stringstream ss(full.substr(bar + 1));
      for (std::string kv; ss >> kv;) {
        const auto eq = kv.find('=');
        const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        if (k == "lens")
          lens = split_sizes(v, 'x');
        else if (k == "ylens")
          ylens = split_sizes(v, 'x');
        else if (k == "x")
          xs = split_sizes(v, ',');
        else if (k == "y")
          ys = split_sizes(v, ',');
        else if (k == "dx")
          dxs = split_sizes(v, ',');
        else if (k == "dy")
          dys = split_sizes(v, ',');
        else
          ADD_FAILURE() << full << ": unknown key " << k;
      }
    }
    if (ylens.empty()) ylens = lens;
    // The line's layout applies to lengths of its rank; other ranks are packed in order.
    auto packed = [&](const std::vector<size_t>& l) {
      return l.size() == spec.lens.size() ? strides_for_layout(l, spec.layout)
                                          : std::vector<size_t>{};
    };
    if (xs.empty()) xs = packed(lens);
    if (ys.empty()) ys = packed(ylens);
    if (dxs.empty()) dxs = xs;
    if (dys.empty()) dys = ys;
    ActivCase c;
    c.x = TensorDescriptor(spec.type, lens, xs);
    c.y = TensorDescriptor(spec.type, ylens, ys);
    c.dx = TensorDescriptor(spec.type, lens, dxs);
    c.dy = TensorDescriptor(spec.type, ylens, dys);
    const bool one_mode = (" " + line + " ").find(" -m ") != std::string::npos;
    for (int m = 0; m <= 9; ++m) {
      if (one_mode && m != spec.desc.mode) continue;
      c.desc = one_mode
                   ? spec.desc
                   : ref::ActivationDesc{static_cast<miopenActivationMode_t>(m), 0.7, 1.3, 2.0};
      c.line = full + (one_mode ? "" : " (mode " + std::to_string(m) + ")");
      out.push_back(c);
    }
  }
  return out;
}

inline ActivationProblem activation_problem(const ActivCase& c, ActivDirection dir) {
  ActivDescriptors d;
  d.x = &c.x;
  d.y = &c.y;
  if (dir == ActivDirection::Backward) {
    d.dx = &c.dx;
    d.dy = &c.dy;
  }
  return ActivationProblem(dir, {c.desc.mode, c.desc.alpha, c.desc.beta, c.desc.gamma}, d);
}

inline driver::HostTensor host_tensor(const TensorDescriptor& d) {
  driver::HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

// Offsets of the logical elements, in logical order.
inline std::vector<size_t> element_offsets(const TensorDescriptor& d) {
  std::vector<size_t> offs(d.element_count());
  std::vector<size_t> idx(d.num_dims(), 0);
  for (size_t& o : offs) {
    o = 0;
    for (size_t k = 0; k < idx.size(); ++k)
      o += idx[k] * d.strides()[k];
    for (size_t k = idx.size(); k-- > 0;) {
      if (++idx[k] < d.lens()[k]) break;
      idx[k] = 0;
    }
  }
  return offs;
}

// The tolerance of the tests (absolute or relative, per element): MIOpen's 80 epsilons for fp32;
// tighter than MIOpen's driver for 16-bit types (8 ulp fp16, 4 ulp bf16).
inline double activation_test_tolerance(miopenDataType_t t) {
  return t == miopenFloat ? ref::activation_tolerance(t) : t == miopenHalf ? 8e-3 : 3.2e-2;
}

// One call: fresh inputs, the reference, the run, the checks.
inline void check_activation(const ActivCase& c, ActivDirection dir, float alpha, float beta,
                             std::mt19937& rng, const ActivRunner& run) {
  const bool bwd = dir == ActivDirection::Backward;
  const ActivationProblem p = activation_problem(c, dir);
  SCOPED_TRACE(c.line + (bwd ? " backward" : " forward") + " alpha " + std::to_string(alpha) +
               " beta " + std::to_string(beta) + " [" + p.key() + "]");
  ActivHostBuffers b;
  b.x = host_tensor(c.x);
  b.y = host_tensor(c.y);
  b.dy = host_tensor(c.dy);
  const TensorDescriptor& od = bwd ? c.dx : c.y;
  b.out = host_tensor(od);
  const auto xo = element_offsets(c.x), yo = element_offsets(c.y), dyo = element_offsets(c.dy),
             oo = element_offsets(od);
  // Inputs: x away from the kinks; y = f(x) rounded to the type (what a forward pass left);
  // dy uniform. Padding holds values the solvers must not read into the result.
  b.x.fill_uniform(rng, -1.0, 1.0, 1.0);
  for (size_t i = 0; i < xo.size(); ++i)
    b.x.set(xo[i], ref::activation_input(c.desc, i, rng));
  const auto xs = ref::to_logical(b.x.view());
  const auto fx = ref::activation_forward(c.desc, xs);
  for (size_t i = 0; i < yo.size(); ++i)
    b.y.set(yo[i], fx[i]);
  b.dy.fill_uniform(rng, -1.0, 1.0, 1.0);
  const bool plain = alpha == 1.0f && beta == 0.0f;
  if (plain)
    b.out.poison();
  else
    b.out.fill_uniform(rng, -1.0, 1.0, 1.0);
  const driver::HostTensor prior = b.out;

  std::vector<double> want = bwd ? ref::activation_backward(c.desc, ref::to_logical(b.dy.view()),
                                                            xs, ref::to_logical(b.y.view()))
                                 : fx;
  if (!plain) {
    const auto pr = ref::to_logical(prior.view());
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = alpha * want[i] + beta * pr[i];
  }
  run(p, b, alpha, beta);
  const auto got = ref::to_logical(b.out.view());
  const double tol = activation_test_tolerance(c.x.type());
  const long long bad = ref::activation_mismatch(want, got, tol);
  if (bad >= 0) {
    const auto i = static_cast<size_t>(bad);
    ADD_FAILURE() << "element " << i << " (x = " << xs[i] << "): want " << want[i] << ", got "
                  << got[i] << ", tolerance " << tol;
  }
  // Nothing outside the output's elements changed.
  const std::set<size_t> written(oo.begin(), oo.end());
  const size_t esize = b.out.bytes.size() / b.out.elements();
  for (size_t e = 0; e < b.out.elements(); ++e)
    if (written.count(e) == 0 &&
        std::memcmp(&b.out.bytes[e * esize], &prior.bytes[e * esize], esize) != 0) {
      ADD_FAILURE() << "padding element " << e << " of the output was written";
      break;
    }
}

// The blend cases every problem runs.
struct ActivBlend {
  float alpha, beta;
};
inline const std::vector<ActivBlend>& activation_blends() {
  static const std::vector<ActivBlend> b = {{1.0f, 0.0f}, {0.75f, 0.5f}};
  return b;
}

}  // namespace anydnn::test
