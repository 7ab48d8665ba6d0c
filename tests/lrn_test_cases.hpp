// The LRN solver tests' problem list and checks, shared by the CPU suite
// (unit/lrn_solvers_test.cpp) and the GPU suite (gpu/lrn_solvers_gpu_test.cpp).
//
// tests/problems/lrn_problems.txt holds MIOpenDriver lrn lines; a line without -m runs both
// modes. After a '|' come strides the driver cannot express:
//   x=s,s,s,s  y=  dy=  dx=   (default packed NCHW; the scale lives at y's strides).
// Each case runs forward keeping the scale (do_backward), forward without it, and backward, on
// fresh random inputs with NaN-poisoned outputs; y, the scale and dx must match the double
// reference element by element, and every byte outside an output's elements (padding) must be
// left as it was. Backward's y and scale are the reference forward's, rounded to the data type.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common_test_util.hpp"
#include "core/tensor_descriptor.hpp"
#include "host_buffer.hpp"
#include "lrn/lrn_problem.hpp"
#include "lrn_reference.hpp"
#include "lrn_spec.hpp"

namespace anydnn::test {

struct LrnCase {
  std::string line;  // with the mode it runs, for traces
  ref::LrnDesc desc;
  TensorDescriptor x, y, dy, dx;
};

// Host copies of one call's tensors; `ws` is the workspace (y's shape and strides).
struct LrnHostBuffers {
  driver::HostTensor x, y, dy, dx, ws;
};

// Runs the problem on the buffers (forward: x -> y and, when p.uses_workspace(), ws; backward:
// y, dy, x, ws -> dx).
using LrnRunner = std::function<void(const LrnProblem&, LrnHostBuffers&)>;

inline std::vector<size_t> lrn_split(const std::string& s) {
  std::vector<size_t> v;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');)
    v.push_back(std::stoul(t));
  return v;
}

inline std::vector<LrnCase> load_lrn_cases() {
  std::vector<LrnCase> out;
  for (const std::string& full : load_problem_lines("lrn_problems.txt")) {
    const auto bar = full.find('|');
    const std::string line = full.substr(0, bar);
    driver::LrnSpec spec;
    if (const auto err = driver::parse_lrn_line(line, spec)) {
      ADD_FAILURE() << line << ": " << *err;
      continue;
    }
    const std::vector<size_t> lens(spec.lens.begin(), spec.lens.end());
    const std::vector<size_t> packed = strides_for_layout(lens, "NCHW");
    std::vector<size_t> xs = packed, ys = packed, dys = packed, dxs = packed;
    if (bar != std::string::npos) {
      std::stringstream ss(full.substr(bar + 1));
      for (std::string kv; ss >> kv;) {
        const auto eq = kv.find('=');
        const std::string k = kv.substr(0, eq);
        const auto v = lrn_split(kv.substr(eq + 1));
        if (k == "x")
          xs = v;
        else if (k == "y")
          ys = v;
        else if (k == "dy")
          dys = v;
        else if (k == "dx")
          dxs = v;
        else
          ADD_FAILURE() << full << ": unknown key " << k;
      }
    }
    LrnCase c;
    c.x = TensorDescriptor(spec.type, lens, xs);
    c.y = TensorDescriptor(spec.type, lens, ys);
    c.dy = TensorDescriptor(spec.type, lens, dys);
    c.dx = TensorDescriptor(spec.type, lens, dxs);
    c.desc = spec.desc;
    const bool one_mode = (" " + line + " ").find(" -m ") != std::string::npos;
    for (int m = 0; m <= 1; ++m) {
      if (one_mode && m != spec.desc.mode) continue;
      c.desc.mode = static_cast<miopenLRNMode_t>(m);
      c.line = full + " (mode " + std::to_string(m) + ")";
      out.push_back(c);
    }
  }
  return out;
}

inline LrnParams lrn_params(const ref::LrnDesc& d) {
  LrnParams p;
  p.mode = d.mode;
  p.n = d.n;
  p.alpha = d.alpha;
  p.beta = d.beta;
  p.k = d.k;
  return p;
}

inline LrnProblem lrn_problem(const LrnCase& c, LrnDirection dir, bool save_scale) {
  LrnDescriptors d;
  d.x = &c.x;
  d.y = &c.y;
  if (dir == LrnDirection::Backward) {
    d.dy = &c.dy;
    d.dx = &c.dx;
  }
  return LrnProblem(dir, lrn_params(c.desc), d, save_scale);
}

inline driver::HostTensor lrn_host_tensor(const TensorDescriptor& d) {
  driver::HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

// Writes logical-order values into a tensor through its strides (rounded to its type).
inline void lrn_store(driver::HostTensor& t, const std::vector<double>& v) {
  size_t i = 0;
  for (size_t n = 0; n < t.lens[0]; ++n)
    for (size_t c = 0; c < t.lens[1]; ++c)
      for (size_t h = 0; h < t.lens[2]; ++h)
        for (size_t w = 0; w < t.lens[3]; ++w, ++i)
          t.set(n * t.strides[0] + c * t.strides[1] + h * t.strides[2] + w * t.strides[3], v[i]);
}

// Per element, absolute or relative: fp32 2e-5 (exp / log in float and backward's difference of
// two terms); fp16 a few ulp of the output (the reference computes on the rounded inputs).
inline double lrn_test_tolerance(miopenDataType_t t) {
  return t == miopenFloat ? 2e-5 : 4e-3;
}

inline void expect_lrn_close(const std::vector<double>& want, const driver::HostTensor& got_t,
                             const char* what) {
  const auto got = ref::to_logical(got_t.view());
  const double tol = lrn_test_tolerance(got_t.type);
  for (size_t i = 0; i < want.size(); ++i) {
    const double err = std::abs(want[i] - got[i]);
    if (!(err <= tol || err <= tol * std::abs(want[i]))) {
      ADD_FAILURE() << what << " element " << i << ": want " << want[i] << ", got " << got[i]
                    << ", tolerance " << tol;
      return;
    }
  }
}

// Nothing outside the tensor's elements changed from `prior`.
inline void expect_lrn_padding_kept(const driver::HostTensor& t, const driver::HostTensor& prior,
                                    const char* what) {
  std::set<size_t> written;
  for (size_t n = 0; n < t.lens[0]; ++n)
    for (size_t c = 0; c < t.lens[1]; ++c)
      for (size_t h = 0; h < t.lens[2]; ++h)
        for (size_t w = 0; w < t.lens[3]; ++w)
          written.insert(n * t.strides[0] + c * t.strides[1] + h * t.strides[2] + w * t.strides[3]);
  const size_t esize = t.bytes.size() / t.elements();
  for (size_t e = 0; e < t.elements(); ++e)
    if (written.count(e) == 0 &&
        std::memcmp(&t.bytes[e * esize], &prior.bytes[e * esize], esize) != 0) {
      ADD_FAILURE() << "padding element " << e << " of " << what << " was written";
      return;
    }
}

// One direction of one case; forward with `save_scale` keeps (and checks) the scale.
inline void check_lrn(const LrnCase& c, LrnDirection dir, bool save_scale, std::mt19937& rng,
                      const LrnRunner& run) {
  const bool bwd = dir == LrnDirection::Backward;
  const LrnProblem p = lrn_problem(c, dir, save_scale);
  SCOPED_TRACE(c.line +
               (bwd          ? " backward"
                : save_scale ? " forward keeping the scale"
                             : " forward") +
               " [" + p.key() + "]");
  const std::array<size_t, 4> lens = {c.x.lens()[0], c.x.lens()[1], c.x.lens()[2], c.x.lens()[3]};
  LrnHostBuffers b;
  b.x = lrn_host_tensor(c.x);
  b.y = lrn_host_tensor(c.y);
  b.dy = lrn_host_tensor(c.dy);
  b.dx = lrn_host_tensor(c.dx);
  b.ws = lrn_host_tensor(c.y);
  b.x.fill_uniform(rng, -2.0, 2.0, 1.0);
  const auto x = ref::to_logical(b.x.view());
  std::vector<double> scale;
  const std::vector<double> y = ref::lrn_forward(c.desc, lens, x, &scale);
  if (!bwd) {
    b.y.poison();
    b.ws.poison();
    const driver::HostTensor y_prior = b.y, ws_prior = b.ws;
    run(p, b);
    expect_lrn_close(y, b.y, "y");
    expect_lrn_padding_kept(b.y, y_prior, "y");
    if (save_scale) {
      expect_lrn_close(scale, b.ws, "scale");
      expect_lrn_padding_kept(b.ws, ws_prior, "the workspace");
    } else {
      EXPECT_EQ(b.ws.bytes, ws_prior.bytes) << "the workspace was written without do_backward";
    }
    return;
  }
  lrn_store(b.y, y);
  lrn_store(b.ws, scale);
  b.dy.fill_uniform(rng, -1.0, 1.0, 1.0);
  b.dx.poison();
  const driver::HostTensor dx_prior = b.dx;
  // The reference reads what the solver reads: y and the scale as rounded to the type.
  const std::vector<double> want =
      ref::lrn_backward(c.desc, lens, x, ref::to_logical(b.y.view()), ref::to_logical(b.dy.view()),
                        ref::to_logical(b.ws.view()));
  run(p, b);
  expect_lrn_close(want, b.dx, "dx");
  expect_lrn_padding_kept(b.dx, dx_prior, "dx");
}

// The three runs of a case: forward keeping the scale, forward without, backward.
struct LrnRun {
  LrnDirection dir;
  bool save_scale;
};
inline const std::vector<LrnRun>& lrn_runs() {
  static const std::vector<LrnRun> r = {{LrnDirection::Forward, true},
                                        {LrnDirection::Forward, false},
                                        {LrnDirection::Backward, false}};
  return r;
}

}  // namespace anydnn::test
