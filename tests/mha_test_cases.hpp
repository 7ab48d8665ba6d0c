// The multi-head-attention solver tests' problem list and check, shared by the CPU suite
// (unit/mha_solvers_test.cpp) and the GPU suite (gpu/mha_solvers_gpu_test.cpp).
//
// Each case runs forward and backward on fresh random inputs, outputs NaN-poisoned first, against
// the double reference (reference/mha_reference.hpp): O, M, ZInv and both amaxes forward; dQ,
// dK, dV and the four amaxes backward, whose O, M and ZInv come from the reference's forward.
// Every byte outside an output's elements (strided layouts) must be left as it was.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common_test_util.hpp"
#include "host_buffer.hpp"
#include "mha/mha_ops.hpp"
#include "mha/mha_problem.hpp"
#include "mha_reference.hpp"
#include "verify.hpp"

namespace anydnn::test {

enum class MhaLayout {
  Packed,   // [N, H, S, D] packed (MIOpen's)
  Bshd,     // memory order N, S, H, D (PyTorch's [batch, seq, heads, dim] viewed as NHSD)
  Strided,  // padded rows and every other element along D: no GEMM reads it in place
};

struct MhaCase {
  std::string name;
  long long n = 1, h = 1, sq = 1, sk = 1, d = 1, dv = 1;
  miopenDataType_t type = miopenFloat;
  bool causal = false;
  float dropout = 0.0f;
  std::vector<size_t> bias;  // lengths (1 where broadcast); empty: no bias
  miopenDataType_t bias_type = miopenFloat;
  MhaLayout layout = MhaLayout::Packed;
  float scale = 1.0f;          // the descriptor's
  bool random_scales = false;  // scale / descale tensors drawn from [0.5, 2] instead of 1
};

inline std::vector<MhaCase> mha_cases() {
  using L = MhaLayout;
  std::vector<MhaCase> c;
  auto add = [&](MhaCase x) { c.push_back(std::move(x)); };
  // MIOpen's test_gtest_mha_find20 shape, plain.
  add({"find20_2x4x8x16", 2, 4, 8, 8, 16, 16});
  add({"one_element", 1, 1, 1, 1, 1, 1});
  add({"odd_causal_bias", 1, 3, 13, 13, 7, 7, miopenFloat, true, 0.0f, {1, 3, 13, 13}});
  add({"dropout_bias_scales",
       2,
       2,
       17,
       17,
       5,
       5,
       miopenFloat,
       false,
       0.3f,
       {2, 2, 17, 17},
       miopenFloat,
       L::Packed,
       0.447f,
       true});
  add({"two_row_blocks_causal_dropout",
       1,
       2,
       70,
       70,
       9,
       9,
       miopenFloat,
       true,
       0.2f,
       {},
       miopenFloat,
       L::Packed,
       0.333f});
  add({"cross_sq_ne_sk_dv_ne_d",
       2,
       1,
       37,
       23,
       8,
       12,
       miopenFloat,
       true,
       0.25f,
       {1, 1, 37, 23},
       miopenFloat,
       L::Packed,
       0.35f});
  add({"bshd_layout",
       2,
       3,
       9,
       9,
       8,
       8,
       miopenFloat,
       false,
       0.0f,
       {2, 1, 1, 9},
       miopenFloat,
       L::Bshd,
       0.35f});
  add({"strided_scales",
       1,
       2,
       7,
       6,
       5,
       3,
       miopenFloat,
       true,
       0.5f,
       {1, 2, 7, 6},
       miopenFloat,
       L::Strided,
       0.5f,
       true});
  add({"fp16_causal_dropout",
       2,
       2,
       11,
       11,
       16,
       16,
       miopenHalf,
       true,
       0.1f,
       {2, 2, 11, 11},
       miopenHalf,
       L::Packed,
       0.25f});
  add({"fp16_bshd_float_bias",
       1,
       2,
       19,
       19,
       8,
       8,
       miopenHalf,
       false,
       0.0f,
       {1, 2, 19, 19},
       miopenFloat,
       L::Bshd,
       0.35f});
  add({"bf16_broadcast_bias",
       1,
       2,
       19,
       23,
       8,
       8,
       miopenBFloat16,
       false,
       0.0f,
       {1, 1, 1, 23},
       miopenFloat,
       L::Packed,
       0.35f});
  add({"bf16_strided_causal",
       2,
       1,
       9,
       9,
       4,
       4,
       miopenBFloat16,
       true,
       0.3f,
       {},
       miopenFloat,
       L::Strided,
       0.5f});
  add({"batch1_long_rows",
       1,
       1,
       130,
       150,
       32,
       32,
       miopenFloat,
       false,
       0.1f,
       {},
       miopenFloat,
       L::Packed,
       0.177f});
  add({"heads8_d64",
       2,
       8,
       64,
       64,
       64,
       64,
       miopenFloat,
       true,
       0.0f,
       {},
       miopenFloat,
       L::Packed,
       0.125f});
  return c;
}

// Strides of a [N, H, rows, cols] tensor in the case's layout.
inline std::vector<size_t> mha_strides(MhaLayout layout, const std::vector<size_t>& l) {
  const size_t h = l[1], r = l[2], c = l[3];
  switch (layout) {
    case MhaLayout::Bshd:
      return {r * h * c, c, h * c, 1};
    case MhaLayout::Strided: {
      const size_t row = 2 * c + 3;
      return {h * r * row, r * row, row, 2};
    }
    default:
      return {h * r * c, r * c, c, 1};
  }
}

inline MhaProblem::Descriptors mha_descriptors(const MhaCase& c, MhaDirection dir) {
  using T = MhaTensor;
  const auto z = [](long long v) { return static_cast<size_t>(v); };
  MhaProblem::Descriptors d;
  auto tensor = [&](T t, miopenDataType_t type, std::vector<size_t> lens) {
    d.emplace(t, TensorDescriptor(type, lens, mha_strides(c.layout, lens)));
  };
  tensor(T::Q, c.type, {z(c.n), z(c.h), z(c.sq), z(c.d)});
  tensor(T::K, c.type, {z(c.n), z(c.h), z(c.sk), z(c.d)});
  tensor(T::V, c.type, {z(c.n), z(c.h), z(c.sk), z(c.dv)});
  tensor(T::O, c.type, {z(c.n), z(c.h), z(c.sq), z(c.dv)});
  tensor(T::M, miopenFloat, {z(c.n), z(c.h), z(c.sq), 1});
  tensor(T::ZInv, miopenFloat, {z(c.n), z(c.h), z(c.sq), 1});
  if (!c.bias.empty()) tensor(T::Bias, c.bias_type, c.bias);
  if (dir == MhaDirection::Backward) {
    tensor(T::DO, c.type, {z(c.n), z(c.h), z(c.sq), z(c.dv)});
    tensor(T::DQ, c.type, {z(c.n), z(c.h), z(c.sq), z(c.d)});
    tensor(T::DK, c.type, {z(c.n), z(c.h), z(c.sk), z(c.d)});
    tensor(T::DV, c.type, {z(c.n), z(c.h), z(c.sk), z(c.dv)});
  }
  for (int i = 0; i < kMhaTensorCount; ++i) {
    const auto t = static_cast<T>(kMhaTensorFirst + i);
    if (d.count(t) != 0 || mha_role(dir, t) != MhaRole::Required) continue;
    const bool integer = t == T::DropoutSeed || t == T::DropoutOffset;
    d.emplace(t, TensorDescriptor(integer ? miopenInt64 : miopenFloat, {1, 1, 1, 1}));
  }
  return d;
}

inline MhaProblem mha_problem(const MhaCase& c, MhaDirection dir) {
  return MhaProblem(dir, c.scale, mha_descriptors(c, dir));
}

// Host copies of every tensor of one call, and the run-time mask.
struct MhaHostCall {
  std::map<MhaTensor, driver::HostTensor> t;
  MhaMask mask = MhaMask::None;
  // (argument id, pointer) pairs over `pointer(t)` of every tensor, plus the mask.
  template <class F>
  std::vector<MhaArgument> arguments(F&& pointer) {
    std::vector<MhaArgument> a;
    for (auto& [id, h] : t)
      a.push_back({static_cast<uint32_t>(id), pointer(id, h)});
    a.push_back({kMhaMaskArgumentId, &mask});
    return a;
  }
};

// Runs the solver under test on the call's tensors and writes its outputs back into them.
using MhaRunner = std::function<void(const MhaProblem&, MhaHostCall&)>;

inline driver::HostTensor mha_host_tensor(const TensorDescriptor& d) {
  driver::HostTensor h;
  h.type = d.type();
  h.lens = d.lens();
  h.strides = d.strides();
  h.bytes.assign(d.num_bytes(), 0);
  return h;
}

inline void mha_set_logical(driver::HostTensor& h, const std::vector<double>& v) {
  size_t i = 0;
  for (size_t a = 0; a < h.lens[0]; ++a)
    for (size_t b = 0; b < h.lens[1]; ++b)
      for (size_t r = 0; r < h.lens[2]; ++r)
        for (size_t c = 0; c < h.lens[3]; ++c, ++i)
          h.set(a * h.strides[0] + b * h.strides[1] + r * h.strides[2] + c * h.strides[3], v[i]);
}

inline double mha_scalar(const MhaHostCall& call, MhaTensor t) {
  return call.t.count(t) != 0 ? call.t.at(t).get(0) : 1.0;
}

inline int64_t mha_int(const MhaHostCall& call, MhaTensor t) {
  int64_t v = 0;
  std::memcpy(&v, call.t.at(t).bytes.data(), sizeof v);
  return v;
}

// Per-output tolerance on max_relative_error (verify.hpp): fp32 arithmetic, plus the rounding of
// the output (and, on the GPU, of P and dS before their GEMMs) to 16 bits.
inline double mha_tolerance(miopenDataType_t t, MhaDirection dir) {
  const bool fwd = dir == MhaDirection::Forward;
  if (t == miopenHalf) return fwd ? 4e-3 : 1e-2;
  if (t == miopenBFloat16) return fwd ? 2e-2 : 5e-2;
  return fwd ? 2e-5 : 5e-5;
}

// Draws the call's inputs (backward: O, M, ZInv from the reference's forward), poisons its
// outputs, and returns the reference's parameters.
inline ref::MhaParams mha_fill(const MhaCase& c, const MhaProblem& p, MhaHostCall& call,
                               std::mt19937& rng);

// Reference shape and the bias expanded to [N, H, Sq, Sk] (empty without one).
inline ref::MhaShape mha_shape(const MhaCase& c) {
  const auto z = [](long long v) { return static_cast<size_t>(v); };
  return {z(c.n), z(c.h), z(c.sq), z(c.sk), z(c.d), z(c.dv)};
}

inline std::vector<double> mha_full_bias(const MhaCase& c, const MhaHostCall& call) {
  if (c.bias.empty()) return {};
  const std::vector<double> b = ref::to_logical(call.t.at(MhaTensor::Bias).view());
  std::vector<double> full;
  for (long long n = 0; n < c.n; ++n)
    for (long long h = 0; h < c.h; ++h)
      for (long long i = 0; i < c.sq; ++i)
        for (long long j = 0; j < c.sk; ++j) {
          const size_t idx[4] = {c.bias[0] == 1 ? 0 : static_cast<size_t>(n),
                                 c.bias[1] == 1 ? 0 : static_cast<size_t>(h),
                                 c.bias[2] == 1 ? 0 : static_cast<size_t>(i),
                                 c.bias[3] == 1 ? 0 : static_cast<size_t>(j)};
          full.push_back(
              b[((idx[0] * c.bias[1] + idx[1]) * c.bias[2] + idx[2]) * c.bias[3] + idx[3]]);
        }
  return full;
}

inline std::vector<double> mha_logical(const MhaHostCall& call, MhaTensor t) {
  return ref::to_logical(call.t.at(t).view());
}

inline ref::MhaParams mha_fill(const MhaCase& c, const MhaProblem& p, MhaHostCall& call,
                               std::mt19937& rng) {
  using T = MhaTensor;
  const bool fwd = p.forward();
  call.t.clear();
  call.mask = c.causal ? MhaMask::Causal : MhaMask::None;
  for (const auto& [t, d] : p.descriptors()) {
    driver::HostTensor h = mha_host_tensor(d);
    if (d.type() == miopenInt64) h.bytes.assign(8, 0);
    call.t.emplace(t, std::move(h));
  }
  std::uniform_real_distribution<double> scale_draw(0.5, 2.0);
  ref::MhaParams rp;
  rp.scale = c.scale;
  rp.causal = c.causal;
  rp.dropout = c.dropout;
  rp.seed = std::uniform_int_distribution<uint64_t>()(rng);
  rp.offset = std::uniform_int_distribution<uint64_t>(0, 1000)(rng);
  const std::pair<T, double ref::MhaParams::*> scalars[] = {
      {T::DescaleQ, &ref::MhaParams::descale_q},   {T::DescaleK, &ref::MhaParams::descale_k},
      {T::DescaleV, &ref::MhaParams::descale_v},   {T::DescaleS, &ref::MhaParams::descale_s},
      {T::ScaleS, &ref::MhaParams::scale_s},       {T::ScaleO, &ref::MhaParams::scale_o},
      {T::DescaleO, &ref::MhaParams::descale_o},   {T::DescaleDO, &ref::MhaParams::descale_do},
      {T::DescaleDS, &ref::MhaParams::descale_ds}, {T::ScaleDS, &ref::MhaParams::scale_ds},
      {T::ScaleDQ, &ref::MhaParams::scale_dq},     {T::ScaleDK, &ref::MhaParams::scale_dk},
      {T::ScaleDV, &ref::MhaParams::scale_dv}};
  for (const auto& [t, member] : scalars) {
    if (call.t.count(t) == 0) continue;
    const float v = c.random_scales ? static_cast<float>(scale_draw(rng)) : 1.0f;
    call.t.at(t).set(0, v);
    rp.*member = v;
  }
  call.t.at(T::DropoutProbability).set(0, c.dropout);
  std::memcpy(call.t.at(T::DropoutSeed).bytes.data(), &rp.seed, 8);
  std::memcpy(call.t.at(T::DropoutOffset).bytes.data(), &rp.offset, 8);
  for (const T t : {T::Q, T::K, T::V, T::Bias, T::DO})
    if (call.t.count(t) != 0) call.t.at(t).fill_uniform(rng, -1.0, 1.0, 1.0);
  if (!fwd) {
    // O, M and ZInv as the forward leaves them (random ones would not be a softmax's).
    const ref::MhaForwardResult f =
        ref::mha_forward(mha_shape(c), rp, mha_logical(call, T::Q), mha_logical(call, T::K),
                         mha_logical(call, T::V), mha_full_bias(c, call));
    mha_set_logical(call.t.at(T::O), f.o);
    mha_set_logical(call.t.at(T::M), f.m);
    mha_set_logical(call.t.at(T::ZInv), f.zinv);
  }
  for (auto& [t, h] : call.t)
    if (mha_is_output(p.direction(), t)) h.poison();
  return rp;
}

// Compares `got` (an output tensor) with the reference and checks nothing outside its elements
// changed from `prior`.
inline void mha_expect_close(const char* what, const std::vector<double>& want,
                             const driver::HostTensor& got, const driver::HostTensor& prior,
                             double tol) {
  const double err = ref::max_relative_error(want, ref::to_logical(got.view()));
  EXPECT_LE(err, tol) << what << ": max relative error " << err;
  if (got.lens.size() != 4) return;
  std::set<size_t> written;
  for (size_t a = 0; a < got.lens[0]; ++a)
    for (size_t b = 0; b < got.lens[1]; ++b)
      for (size_t r = 0; r < got.lens[2]; ++r)
        for (size_t c = 0; c < got.lens[3]; ++c)
          written.insert(a * got.strides[0] + b * got.strides[1] + r * got.strides[2] +
                         c * got.strides[3]);
  const size_t esize = got.type == miopenFloat ? 4 : 2;
  for (size_t e = 0; e * esize < got.bytes.size(); ++e)
    if (written.count(e) == 0 &&
        std::memcmp(&got.bytes[e * esize], &prior.bytes[e * esize], esize) != 0) {
      ADD_FAILURE() << what << ": padding element " << e << " was written";
      return;
    }
}

inline void mha_expect_amax(const char* what, double want, const MhaHostCall& call, MhaTensor t,
                            double tol) {
  const double got = call.t.at(t).get(0);
  EXPECT_LE(std::abs(got - want), tol * std::max(1e-30, std::abs(want)))
      << what << ": want " << want << ", got " << got;
}

inline void check_mha(const MhaCase& c, MhaDirection dir, std::mt19937& rng, const MhaRunner& run) {
  using T = MhaTensor;
  const MhaProblem p = mha_problem(c, dir);
  SCOPED_TRACE(c.name + " [" + p.config() + "]");
  MhaHostCall call;
  const ref::MhaParams rp = mha_fill(c, p, call, rng);
  const MhaHostCall prior = call;
  const ref::MhaShape s = mha_shape(c);
  const auto q = mha_logical(call, T::Q), k = mha_logical(call, T::K), v = mha_logical(call, T::V),
             bias = mha_full_bias(c, call);
  run(p, call);
  const double tol = mha_tolerance(c.type, dir);
  if (dir == MhaDirection::Forward) {
    const ref::MhaForwardResult want = ref::mha_forward(s, rp, q, k, v, bias);
    const double stats_tol = mha_tolerance(miopenFloat, dir);
    mha_expect_close("O", want.o, call.t.at(T::O), prior.t.at(T::O), tol);
    mha_expect_close("M", want.m, call.t.at(T::M), prior.t.at(T::M), stats_tol);
    mha_expect_close("ZInv", want.zinv, call.t.at(T::ZInv), prior.t.at(T::ZInv), stats_tol);
    mha_expect_amax("AmaxO", want.amax_o, call, T::AmaxO, tol);
    mha_expect_amax("AmaxS", want.amax_s, call, T::AmaxS, stats_tol);
  } else {
    const ref::MhaBackwardResult want =
        ref::mha_backward(s, rp, q, k, v, mha_logical(call, T::O), mha_logical(call, T::DO),
                          mha_logical(call, T::M), mha_logical(call, T::ZInv), bias);
    mha_expect_close("dQ", want.dq, call.t.at(T::DQ), prior.t.at(T::DQ), tol);
    mha_expect_close("dK", want.dk, call.t.at(T::DK), prior.t.at(T::DK), tol);
    mha_expect_close("dV", want.dv, call.t.at(T::DV), prior.t.at(T::DV), tol);
    mha_expect_amax("AmaxDQ", want.amax_dq, call, T::AmaxDQ, tol);
    mha_expect_amax("AmaxDK", want.amax_dk, call, T::AmaxDK, tol);
    mha_expect_amax("AmaxDV", want.amax_dv, call, T::AmaxDV, tol);
    mha_expect_amax("AmaxDS", want.amax_ds, call, T::AmaxDS, tol);
  }
}

}  // namespace anydnn::test
