// The reduction problem list (tests/problems/reduce_problems.txt) for the CPU and GPU solver
// tests: parsing a line into descriptors and a ReduceProblem, host tensors drawn fresh (A, with
// NaNs where the line asks; C poisoned with NaN unless beta reads it), the double reference's
// answer and the check (every output within tolerance, indices exact, bytes of C outside its
// elements untouched). A device runs the solver through a callback.
//
// A line: <op> <type> <lengths> red=<dims> [key=value ...]
//   op: add mul min max amax avg norm1 norm2, or "all" (one case per op)
//   type: fp32 fp16 bf16 fp64;  red: the reduced dimensions ("-" for none: a bad-input line)
//   idx=1 (FLATTENED_INDICES), nan=1 (PROPAGATE), nans=1 (A holds NaNs), alpha= beta=,
//   a= c= strides of A / C: a layout (NHWC, NDHWC) or "pad" (each dimension padded by one)
#pragma once

#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common_test_util.hpp"
#include "core/data_type.hpp"
#include "core/tensor_descriptor.hpp"
#include "host_buffer.hpp"
#include "reduce_reference.hpp"
#include "reduction/reduce_problem.hpp"

namespace anydnn::test {

struct ReduceCase {
  std::string line, name;
  miopenReduceTensorOp_t op = MIOPEN_REDUCE_TENSOR_ADD;
  ReduceTensorDesc desc;
  TensorDescriptor a, c;
  bool nans = false;
  double alpha = 1.0, beta = 0.0;
};

inline const char* const kReduceOpNames[] = {"add",  "mul", "min",   "max",
                                             "amax", "avg", "norm1", "norm2"};

inline std::vector<size_t> reduce_dims(const std::string& s, char sep) {
  std::vector<size_t> v;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, sep);)
    if (!t.empty() && t != "-") v.push_back(std::stoul(t));
  return v;
}

inline std::vector<size_t> reduce_strides(const std::string& spec, const std::vector<size_t>& l) {
  if (spec.empty()) return {};
  if (spec == "pad") {
    std::vector<size_t> s(l.size());
    size_t acc = 1;
    for (size_t i = l.size(); i-- > 0;) {
      s[i] = acc;
      acc *= l[i] + 1;
    }
    return s;
  }
  return strides_for_layout(l, spec);
}

// One line; "all" gives one case per op.
inline std::vector<ReduceCase> parse_reduce_line(const std::string& line) {
  std::stringstream ss(line);
  std::string op, type, lens;
  ss >> op >> type >> lens;
  ReduceCase k;
  k.line = line;
  const miopenDataType_t t = type == "fp16"   ? miopenHalf
                             : type == "bf16" ? miopenBFloat16
                             : type == "fp64" ? miopenDouble
                                              : miopenFloat;
  const auto al = reduce_dims(lens, 'x');
  std::vector<size_t> red;
  std::string a_spec, c_spec;
  for (std::string kv; ss >> kv;) {
    const auto eq = kv.find('=');
    const std::string key = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (key == "red") red = reduce_dims(v, ',');
    if (key == "idx") k.desc.indices = static_cast<miopenReduceTensorIndices_t>(std::stoi(v));
    if (key == "nan") k.desc.nan_opt = static_cast<miopenNanPropagation_t>(std::stoi(v));
    if (key == "nans") k.nans = v == "1";
    if (key == "alpha") k.alpha = std::stod(v);
    if (key == "beta") k.beta = std::stod(v);
    if (key == "a") a_spec = v;
    if (key == "c") c_spec = v;
  }
  auto cl = al;
  for (size_t d : red)
    cl[d] = 1;
  k.a = TensorDescriptor(t, al, reduce_strides(a_spec, al));
  k.c = TensorDescriptor(t, cl, reduce_strides(c_spec, cl));
  k.desc.comp_type = t == miopenDouble ? miopenDouble : miopenFloat;
  std::string base = type + "_" + lens + "_r";
  for (size_t d : red)
    base += std::to_string(d);
  if (k.desc.indices) base += "_idx";
  if (k.desc.nan_opt) base += "_nanprop";
  if (k.nans) base += "_nans";
  if (k.beta != 0.0) base += "_beta";
  if (k.alpha != 1.0) base += "_alpha";
  if (!a_spec.empty()) base += "_a" + a_spec;
  if (!c_spec.empty()) base += "_c" + c_spec;
  std::vector<ReduceCase> out;
  for (int o = 0; o < 8; ++o) {
    if (op != "all" && op != kReduceOpNames[o]) continue;
    ReduceCase x = k;
    x.op = x.desc.op = static_cast<miopenReduceTensorOp_t>(o);
    x.name = std::string(kReduceOpNames[o]) + "_" + base;
    out.push_back(x);
  }
  return out;
}

inline std::vector<ReduceCase> reduce_cases() {
  std::vector<ReduceCase> out;
  for (const auto& l : load_problem_lines("reduce_problems.txt"))
    for (auto& k : parse_reduce_line(l))
      out.push_back(std::move(k));
  return out;
}

inline ReduceProblem make_reduce_problem(const ReduceCase& k) {
  const float af = static_cast<float>(k.alpha), bf = static_cast<float>(k.beta);
  const void* al = k.a.type() == miopenDouble ? static_cast<const void*>(&k.alpha) : &af;
  const void* be = k.a.type() == miopenDouble ? static_cast<const void*>(&k.beta) : &bf;
  return ReduceProblem(k.desc, k.a, k.c, al, be, reduce_indices_size(k.desc, k.a, k.c),
                       reduce_workspace_size(k.desc, k.a, k.c));
}

inline driver::HostTensor reduce_host_tensor(const TensorDescriptor& d) {
  driver::HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.resize(d.element_space() * data_type_size(d.type()));
  return t;
}

// The logical elements' offsets of a descriptor, in packed logical order.
inline std::vector<size_t> logical_offsets(const TensorDescriptor& d) {
  std::vector<size_t> offs(d.element_count());
  for (size_t o = 0; o < offs.size(); ++o) {
    size_t rest = o, off = 0;
    for (size_t i = d.num_dims(); i-- > 0;) {
      off += (rest % d.lens()[i]) * d.strides()[i];
      rest /= d.lens()[i];
    }
    offs[o] = off;
  }
  return offs;
}

struct ReduceData {
  driver::HostTensor a, c;
};

inline ReduceData draw_reduce(const ReduceCase& k, std::mt19937& rng) {
  ReduceData d{reduce_host_tensor(k.a), reduce_host_tensor(k.c)};
  // MUL over many elements: values near +-1 keep the product finite and meaningful.
  const bool mul = k.op == MIOPEN_REDUCE_TENSOR_MUL;
  d.a.fill_uniform(rng, mul ? 0.9 : -1.0, mul ? 1.1 : 1.0, 1.0);
  if (mul)
    for (size_t i = 0; i < d.a.elements(); i += 3)
      d.a.set(i, -d.a.get(i));
  if (k.nans) {
    std::uniform_int_distribution<size_t> pick(0, k.a.element_count() - 1);
    const auto offs = logical_offsets(k.a);
    for (size_t n = 0; n < 1 + k.a.element_count() / 16; ++n)
      d.a.set(offs[pick(rng)], std::nan(""));
  }
  d.c.poison();
  if (k.beta != 0.0) d.c.fill_uniform(rng, -1.0, 1.0, 1.0);
  return d;
}

inline ref::ReduceResult expected_reduce(const ReduceCase& k, const ReduceData& d) {
  return ref::reduce_tensor(k.op, k.desc.nan_opt == MIOPEN_PROPAGATE_NAN, k.desc.needs_indices(),
                            d.a.view(), d.c.view(), k.alpha, k.beta,
                            k.a.type() == miopenDouble ? DBL_MAX : FLT_MAX);
}

// Relative tolerance: fp32 accumulation over the reduced count, rounding to the storage type.
inline double reduce_tolerance(const ReduceCase& k) {
  switch (k.a.type()) {
    case miopenHalf:
      return 2e-3;
    case miopenBFloat16:
      return 1.6e-2;
    case miopenDouble:
      return 1e-12;
    default:
      return 2e-5;
  }
}

inline void expect_reduce_output(const ReduceCase& k, const ref::ReduceResult& want,
                                 const driver::HostTensor& before, const driver::HostTensor& out,
                                 const std::vector<int>& indices) {
  const auto offs = logical_offsets(k.c);
  std::vector<bool> is_elem(out.elements(), false);
  const double tol = reduce_tolerance(k);
  // A sum of n values in [-1, 1] accumulated in fp32 (sequentially, in the strided walks) may
  // be off by n ulps of 1 however small the result is after cancellation.
  double red_count = 1;
  for (size_t i = 0; i < k.c.num_dims(); ++i)
    if (k.c.lens()[i] == 1) red_count *= static_cast<double>(k.a.lens()[i]);
  const double sum_slack = (k.a.type() == miopenDouble ? 2.3e-16 : 1.2e-7) * red_count;
  int bad = 0;
  for (size_t o = 0; o < offs.size() && bad < 5; ++o) {
    is_elem[offs[o]] = true;
    const double g = out.get(offs[o]), w = want.c[o];
    // The reference is exact; the expected value is rounded to the storage type first.
    driver::HostTensor one = reduce_host_tensor(TensorDescriptor(k.c.type(), {1}));
    one.set(0, w);
    const double wr = one.get(0);
    const bool ok = (std::isnan(wr) && std::isnan(g)) || (std::isinf(wr) && g == wr) ||
                    std::fabs(g - wr) <= tol * (1.0 + std::fabs(wr)) + sum_slack;
    if (!ok) {
      ++bad;
      ADD_FAILURE() << "output " << o << ": got " << g << ", want " << wr;
    }
    if (!want.indices.empty() && indices[offs[o]] != want.indices[o]) {
      ++bad;
      ADD_FAILURE() << "index " << o << ": got " << indices[offs[o]] << ", want "
                    << want.indices[o];
    }
  }
  for (size_t i = 0; i < out.elements(); ++i)
    if (!is_elem[i] &&
        std::memcmp(&out.bytes[i * data_type_size(out.type)],
                    &before.bytes[i * data_type_size(out.type)], data_type_size(out.type)) != 0) {
      ADD_FAILURE() << "element " << i << " outside C's elements was written";
      break;
    }
}

// Draws the case's data, runs it through `run` (A, C, indices on the host; the device copies)
// and checks it against the reference.
inline void check_reduce_case(
    const ReduceCase& k, unsigned seed,
    const std::function<void(const ReduceProblem&, const driver::HostTensor& a,
                             driver::HostTensor& c, std::vector<int>& indices)>& run) {
  std::mt19937 rng(seed);
  const ReduceProblem p = make_reduce_problem(k);
  ReduceData d = draw_reduce(k, rng);
  const auto want = expected_reduce(k, d);
  driver::HostTensor out = d.c;
  const driver::HostTensor before = out;
  std::vector<int> indices(p.plan().indices ? k.c.element_space() : 0, -7);
  run(p, d.a, out, indices);
  expect_reduce_output(k, want, before, out, indices);
}

}  // namespace anydnn::test
