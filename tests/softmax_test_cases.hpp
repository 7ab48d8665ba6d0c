// The softmax solver tests' problem list and checks, shared by the CPU suite
// (unit/softmax_solvers_test.cpp) and the GPU suite (gpu/softmax_solvers_gpu_test.cpp).
//
// tests/problems/softmax_problems.txt holds MIOpenDriver softmax lines; a line without -a runs
// every algorithm, without -m every mode. After a '|' come strides the driver cannot express:
//   x=s,s,s,s  forward input;  y=  forward output / backward input;  dy=, dx=  backward's
// (default packed NCHW). Each case runs forward and backward, plain (alpha 1, beta 0: the
// output is NaN-poisoned first) and blended (alpha 0.75, beta 0.5 over random prior values), on
// fresh random inputs; every element must match the double reference and every byte outside
// the output's elements (padding) must be left as it was.
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
#include "softmax/softmax_problem.hpp"
#include "softmax_reference.hpp"
#include "softmax_spec.hpp"

namespace anydnn::test {

struct SoftmaxCase {
  std::string line;  // with the algorithm and mode it runs, for traces
  ref::SoftmaxDesc desc;
  TensorDescriptor x, y, dy, dx;
};

// Host copies of one call's tensors: `in` is x (forward) or y (backward); `out` y or dx,
// holding the prior output (blended) or NaN (plain).
struct SoftmaxHostBuffers {
  driver::HostTensor in, dy, out;
};

using SoftmaxRunner = std::function<void(const SoftmaxProblem&, SoftmaxHostBuffers&)>;

inline std::vector<size_t> softmax_split(const std::string& s) {
  std::vector<size_t> v;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');)
    v.push_back(std::stoul(t));
  return v;
}

inline std::vector<SoftmaxCase> load_softmax_cases() {
  std::vector<SoftmaxCase> out;
  for (const std::string& full : load_problem_lines("softmax_problems.txt")) {
    const auto bar = full.find('|');
    const std::string line = full.substr(0, bar);
    driver::SoftmaxSpec spec;
    if (const auto err = driver::parse_softmax_line(line, spec)) {
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
        const auto v = softmax_split(kv.substr(eq + 1));
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
    SoftmaxCase c;
    c.x = TensorDescriptor(spec.type, lens, xs);
    c.y = TensorDescriptor(spec.type, lens, ys);
    c.dy = TensorDescriptor(spec.type, lens, dys);
    c.dx = TensorDescriptor(spec.type, lens, dxs);
    const bool one_algo = (" " + line + " ").find(" -a ") != std::string::npos;
    const bool one_mode = (" " + line + " ").find(" -m ") != std::string::npos;
    for (int a = 0; a <= 2; ++a)
      for (int m = 0; m <= 1; ++m) {
        if ((one_algo && a != spec.desc.algorithm) || (one_mode && m != spec.desc.mode)) continue;
        c.desc = {static_cast<miopenSoftmaxAlgorithm_t>(a), static_cast<miopenSoftmaxMode_t>(m)};
        c.line = full + " (algorithm " + std::to_string(a) + ", mode " + std::to_string(m) + ")";
        out.push_back(c);
      }
  }
  return out;
}

inline SoftmaxProblem softmax_problem(const SoftmaxCase& c, SoftmaxDirection dir, float alpha,
                                      float beta) {
  SoftmaxDescriptors d;
  if (dir == SoftmaxDirection::Forward) {
    d.x = &c.x;
    d.y = &c.y;
  } else {
    d.y = &c.y;
    d.dy = &c.dy;
    d.dx = &c.dx;
  }
  return SoftmaxProblem(dir, c.desc.algorithm, c.desc.mode, d, alpha, beta);
}

inline driver::HostTensor softmax_host_tensor(const TensorDescriptor& d) {
  driver::HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

// Per element, absolute or relative: fp32 1e-5; fp16 / bf16 a few ulp of the output (the
// inputs are exact in the type; the reference computes on them).
inline double softmax_test_tolerance(miopenDataType_t t) {
  return t == miopenFloat ? 1e-5 : t == miopenHalf ? 4e-3 : 3e-2;
}

inline void check_softmax(const SoftmaxCase& c, SoftmaxDirection dir, float alpha, float beta,
                          std::mt19937& rng, const SoftmaxRunner& run) {
  const bool bwd = dir == SoftmaxDirection::Backward;
  const SoftmaxProblem p = softmax_problem(c, dir, alpha, beta);
  SCOPED_TRACE(c.line + (bwd ? " backward" : " forward") + " [" + p.key() + "]");
  const std::array<size_t, 4> lens = {c.x.lens()[0], c.x.lens()[1], c.x.lens()[2], c.x.lens()[3]};
  SoftmaxHostBuffers b;
  b.in = softmax_host_tensor(bwd ? c.y : c.x);
  b.dy = softmax_host_tensor(c.dy);
  const TensorDescriptor& od = bwd ? c.dx : c.y;
  b.out = softmax_host_tensor(od);
  // FAST has no max subtraction: keep exp(x) in range. Backward's y is a forward result.
  b.in.fill_uniform(rng, -3.0, 3.0, 1.0);
  if (bwd) {
    const auto fx = ref::softmax_forward(c.desc, lens, ref::to_logical(b.in.view()));
    // Write the forward result through the logical order into y's strides.
    size_t i = 0;
    for (size_t n = 0; n < lens[0]; ++n)
      for (size_t ch = 0; ch < lens[1]; ++ch)
        for (size_t h = 0; h < lens[2]; ++h)
          for (size_t w = 0; w < lens[3]; ++w, ++i)
            b.in.set(n * c.y.strides()[0] + ch * c.y.strides()[1] + h * c.y.strides()[2] +
                         w * c.y.strides()[3],
                     fx[i]);
  }
  b.dy.fill_uniform(rng, -1.0, 1.0, 1.0);
  const bool plain = alpha == 1.0f && beta == 0.0f;
  if (plain)
    b.out.poison();
  else
    b.out.fill_uniform(rng, -1.0, 1.0, 1.0);
  const driver::HostTensor prior = b.out;
  const auto in = ref::to_logical(b.in.view());
  std::vector<double> want =
      bwd ? ref::softmax_backward(c.desc, lens, in, ref::to_logical(b.dy.view()))
          : ref::softmax_forward(c.desc, lens, in);
  if (!plain) want = ref::softmax_blend(want, alpha, beta, ref::to_logical(prior.view()));
  run(p, b);
  const auto got = ref::to_logical(b.out.view());
  const double tol = softmax_test_tolerance(c.x.type());
  for (size_t i = 0; i < want.size(); ++i) {
    const double err = std::abs(want[i] - got[i]);
    if (!(err <= tol || err <= tol * std::abs(want[i]))) {
      ADD_FAILURE() << "element " << i << ": want " << want[i] << ", got " << got[i]
                    << ", tolerance " << tol;
      break;
    }
  }
  // Nothing outside the output's elements changed.
  std::set<size_t> written;
  for (size_t n = 0; n < lens[0]; ++n)
    for (size_t ch = 0; ch < lens[1]; ++ch)
      for (size_t h = 0; h < lens[2]; ++h)
        for (size_t w = 0; w < lens[3]; ++w)
          written.insert(n * od.strides()[0] + ch * od.strides()[1] + h * od.strides()[2] +
                         w * od.strides()[3]);
  const size_t esize = b.out.bytes.size() / b.out.elements();
  for (size_t e = 0; e < b.out.elements(); ++e)
    if (written.count(e) == 0 &&
        std::memcmp(&b.out.bytes[e * esize], &prior.bytes[e * esize], esize) != 0) {
      ADD_FAILURE() << "padding element " << e << " of the output was written";
      break;
    }
}

struct SoftmaxBlend {
  float alpha, beta;
};
inline const std::vector<SoftmaxBlend>& softmax_blends() {
  static const std::vector<SoftmaxBlend> b = {{1.0f, 0.0f}, {0.75f, 0.5f}};
  return b;
}

}  // namespace anydnn::test
