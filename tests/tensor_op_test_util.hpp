// The tensor-op problem list (tests/problems/tensorop_problems.txt) for the CPU and GPU solver
// tests: parsing a line into descriptors, scalars and a TensorOpProblem; host tensors drawn
// fresh, outputs poisoned (or drawn, when beta takes part); the double reference's answer; and
// the check that every element agrees and no byte outside the output's elements changed.
//
// A line: <kind> <type> <lengths> [key=value ...]
//   kind: add | mul | min | max | set | scale | transform; type: fp32 fp16 bf16 fp64 int32 int8
//   c= / a= / b= strides of C (y), A (x), B: a layout (NCHW NHWC CHWN NCDHW NDHWC), "pad"
//   (every dimension padded by one element) or explicit "s0,s1,...";  blens=1x3x1x1 (B);
//   ylens= (an int8 transform onto other channel counts);  alpha1= alpha2= beta= (op),
//   alpha= beta= (transform, scale), value= (set).
#pragma once

#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/float_types.hpp"
#include "core/tensor_descriptor.hpp"
#include "host_buffer.hpp"
#include "tensor_op_reference.hpp"
#include "tensor_ops/tensor_op_problem.hpp"

namespace anydnn::test {

struct TensorOpCase {
  std::string line, name;
  std::string kind;
  miopenDataType_t type = miopenFloat;
  TensorDescriptor a, b, c;
  double alpha1 = 1.0, alpha2 = 1.0, beta = 0.0, value = 0.0;
};

inline std::vector<size_t> parse_dims(const std::string& s, char sep) {
  std::vector<size_t> v;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, sep);)
    v.push_back(std::stoul(t));
  return v;
}

inline std::vector<size_t> strides_of(const std::string& spec, const std::vector<size_t>& lens) {
  if (spec.empty()) return {};
  if (spec == "pad") {
    std::vector<size_t> s(lens.size());
    size_t acc = 1;
    for (size_t i = lens.size(); i-- > 0;) {
      s[i] = acc;
      acc *= lens[i] + 1;
    }
    return s;
  }
  if (std::isdigit(static_cast<unsigned char>(spec[0]))) return parse_dims(spec, ',');
  return strides_for_layout(lens, spec);
}

inline miopenDataType_t type_of(const std::string& t) {
  if (t == "fp16") return miopenHalf;
  if (t == "bf16") return miopenBFloat16;
  if (t == "fp64") return miopenDouble;
  if (t == "int32") return miopenInt32;
  if (t == "int8") return miopenInt8;
  return miopenFloat;
}

inline TensorOpCase parse_tensor_op_line(const std::string& line) {
  TensorOpCase k;
  k.line = line;
  std::stringstream ss(line);
  std::string type, lens;
  ss >> k.kind >> type >> lens;
  k.type = type_of(type);
  std::map<std::string, std::string> kv;
  for (std::string w; ss >> w;) {
    const auto eq = w.find('=');
    kv[w.substr(0, eq)] = w.substr(eq + 1);
  }
  const auto cl = parse_dims(lens, 'x');
  const auto bl = kv.count("blens") ? parse_dims(kv["blens"], 'x') : cl;
  const auto yl = kv.count("ylens") ? parse_dims(kv["ylens"], 'x') : cl;
  k.c = TensorDescriptor(k.type, yl, strides_of(kv["c"], yl));
  k.a = TensorDescriptor(k.type, cl, strides_of(kv["a"], cl));
  k.b = TensorDescriptor(k.type, bl, strides_of(kv["b"], bl));
  const auto num = [&](const char* key, double def) {
    return kv.count(key) ? std::stod(kv[key]) : def;
  };
  k.alpha1 = num("alpha1", num("alpha", 1.0));
  k.alpha2 = num("alpha2", 1.0);
  k.beta = num("beta", 0.0);
  k.value = num("value", 0.0);
  // A gtest-safe name: kind, type, lengths and the options' values.
  std::string name = k.kind + "_" + type + "_" + lens;
  for (const auto& [key, v] : kv)
    name += "_" + key + v;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  k.name = name;
  return k;
}

// The scalar bytes a client passes: floats for OpTensor, the data type for Set / Scale, floats
// compared with 1 / 0 then the data type for Transform (whose values here are 1 / 0 or exact
// in every type). Eight bytes each, so a 4-byte read of a 2-byte value stays in bounds.
struct ScalarBytes {
  uint64_t bits = 0;
  const void* ptr() const { return &bits; }
};
inline ScalarBytes as_float_bytes(double v) {
  ScalarBytes s;
  const float f = static_cast<float>(v);
  std::memcpy(&s.bits, &f, sizeof f);
  return s;
}
inline ScalarBytes as_type_bytes(double v, miopenDataType_t t) {
  ScalarBytes s;
  driver::HostTensor h = driver::HostTensor::zeros(t, 1);
  h.set(0, v);
  std::memcpy(&s.bits, h.bytes.data(), h.bytes.size());
  return s;
}
// Transform: MIOpen compares the first four bytes with float 1 (alpha) / 0 (beta), and reads
// any other value in the data type; a client passes floats for 1 and 0 (as for every other
// MIOpen call) and the data type otherwise.
inline ScalarBytes transform_scalar(double v, double as_float_when, miopenDataType_t t) {
  if (v == as_float_when && t != miopenDouble) return as_float_bytes(v);
  return as_type_bytes(v, t);
}

inline TensorOpProblem make_problem(const TensorOpCase& k) {
  if (k.kind == "set")
    return TensorOpProblem::set_tensor(k.c, as_type_bytes(k.value, k.type).ptr());
  if (k.kind == "scale")
    return TensorOpProblem::scale_tensor(k.c, as_type_bytes(k.alpha1, k.type).ptr());
  if (k.kind == "transform")
    return TensorOpProblem::transform_tensor(k.a, k.c,
                                             transform_scalar(k.alpha1, 1.0, k.type).ptr(),
                                             transform_scalar(k.beta, 0.0, k.type).ptr());
  const miopenTensorOp_t op = k.kind == "add"   ? miopenTensorOpAdd
                              : k.kind == "mul" ? miopenTensorOpMul
                              : k.kind == "min" ? miopenTensorOpMin
                                                : miopenTensorOpMax;
  return TensorOpProblem::op_tensor(op, k.a, k.b, k.c, as_float_bytes(k.alpha1).ptr(),
                                    as_float_bytes(k.alpha2).ptr(), as_float_bytes(k.beta).ptr());
}

inline driver::HostTensor host_of(const TensorDescriptor& d) {
  driver::HostTensor t;
  t.type = d.type();
  t.lens = d.lens();
  t.strides = d.strides();
  t.bytes.assign(d.num_bytes(), 0);
  return t;
}

// Inputs and the output's prior contents of one run, drawn fresh from `rng`.
struct TensorOpData {
  driver::HostTensor a, b, c;
};

inline TensorOpData draw(const TensorOpCase& k, std::mt19937& rng) {
  TensorOpData d{host_of(k.a), host_of(k.b), host_of(k.c)};
  const bool integer = k.type == miopenInt8 || k.type == miopenInt32;
  const double lo = integer ? -100.0 : -2.0, hi = integer ? 100.0 : 2.0;
  d.a.fill_uniform(rng, lo, hi, 1.0);
  d.b.fill_uniform(rng, lo, hi, 1.0);
  d.c.fill_uniform(rng, lo, hi, 1.0);
  // The old output only matters when the op reads it; otherwise it is NaN, so a value the
  // solver fails to write shows (and so does one it wrongly reads, for float types).
  const bool reads_c = k.kind == "scale" || (k.kind != "set" && k.beta != 0.0);
  if (!reads_c) d.c.poison();
  return d;
}

inline std::vector<double> expected(const TensorOpCase& k, const TensorOpData& d) {
  if (k.kind == "set") return std::vector<double>(k.c.element_count(), k.value);
  if (k.kind == "scale") return ref::scale_tensor(d.c.view(), k.alpha1);
  if (k.kind == "transform") {
    if (k.a.lens() != k.c.lens()) return ref::transform_int8_channels(d.a.view(), k.c.lens());
    return ref::transform_tensor(d.a.view(), d.c.view(), k.alpha1, k.beta);
  }
  const miopenTensorOp_t op = k.kind == "add"   ? miopenTensorOpAdd
                              : k.kind == "mul" ? miopenTensorOpMul
                              : k.kind == "min" ? miopenTensorOpMin
                                                : miopenTensorOpMax;
  return ref::op_tensor(op, d.a.view(), d.b.view(), d.c.view(), k.alpha1, k.alpha2, k.beta);
}

// Storage rounding plus fp32 arithmetic: a few units in the type's last place.
inline double tensor_op_tolerance(miopenDataType_t t) {
  switch (t) {
    case miopenHalf:
      return 2e-3;
    case miopenBFloat16:
      return 1.6e-2;
    case miopenFloat:
      return 1e-6;
    default:
      return 0.0;  // double, int32, int8: exact
  }
}

// Every element of `got` agrees with `want`; bytes outside the output's elements equal
// `before`'s (nothing written into gaps).
inline void expect_output(const TensorOpCase& k, const std::vector<double>& want,
                          const driver::HostTensor& before, const driver::HostTensor& got) {
  const auto values = ref::to_logical(got.view());
  ASSERT_EQ(values.size(), want.size());
  const double tol = tensor_op_tolerance(k.type);
  size_t bad = 0;
  for (size_t i = 0; i < want.size() && bad < 5; ++i) {
    const double err = std::abs(values[i] - want[i]);
    if (!(err <= tol * std::max(1.0, std::abs(want[i])))) {
      ADD_FAILURE() << "element " << i << ": got " << values[i] << ", want " << want[i];
      ++bad;
    }
  }
  // Gaps: mark the output's own elements in a copy of `before`, compare the rest.
  std::vector<bool> mine(got.bytes.size(), false);
  const size_t es = got.bytes.size() / std::max<size_t>(1, got.elements());
  std::vector<size_t> idx(got.lens.size(), 0);
  for (size_t i = 0; i < want.size(); ++i) {
    size_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      off += idx[d] * got.strides[d];
    for (size_t j = 0; j < es; ++j)
      mine[off * es + j] = true;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < got.lens[d]) break;
      idx[d] = 0;
    }
  }
  for (size_t i = 0; i < got.bytes.size(); ++i)
    if (!mine[i] && got.bytes[i] != before.bytes[i]) {
      ADD_FAILURE() << "byte " << i << " outside the output's elements was written";
      break;
    }
}

}  // namespace anydnn::test
