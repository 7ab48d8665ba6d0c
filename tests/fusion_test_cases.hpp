// What the fused-kernel tests share (CPU: unit/conv_epilogue_test.cpp,
// unit/fusion_solvers_test.cpp; a GPU twin can take the same): every activation mode with
// non-trivial parameters, the double reference of a convolution epilogue and of BN with a fused
// activation, and inputs drawn so that the activation's derivative has no kink within rounding
// distance of bn(x) (a derivative that jumps would turn one rounding into a wrong element).
#pragma once

#include <miopen/miopen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "activation/fused_epilogue.hpp"
#include "activation_reference.hpp"
#include "bn/bn_problem.hpp"
#include "bn_reference.hpp"
#include "common_test_util.hpp"
#include "conv_test_util.hpp"
#include "host_buffer.hpp"
#include "verify.hpp"

namespace anydnn::test {

// The relative rms (ref::relative_rms) a fused convolution chain may be off: MIOpen's fusion
// tests' threshold, 80 machine epsilons, for fp32 (test/gtest/conv_test_base.hpp,
// ThresholdChecks, used by cba.hpp and cba_find2.hpp): an activation that compresses the output
// (TANH, LOGISTIC) raises the convolution's own relative error, which MIOpen's plain
// convolution tolerance (1.5e-6) has no room for. 16-bit: the convolution tolerance, tighter
// than 80 epsilons there.
inline double fusion_tolerance(miopenDataType_t type) {
  return type == miopenFloat ? 80.0 * 1.1920929e-7 : ref::conv_default_tolerance(type);
}

// The error of a fused epilogue's output: ref::relative_rms with the magnitude taken over the
// convolution's own output (conv) too. The epilogue rounds in proportion to its inputs, and a
// clipping activation can leave only cancelled values (conv 0.3392 + bias -0.3388 = 4e-4, the
// rest cut to 0): against the output's magnitude alone, one float rounding of the convolution
// then reads as an error of 1e-4.
inline double epilogue_error(const std::vector<double>& want, const std::vector<double>& got,
                             const std::vector<double>& conv) {
  if (want.size() != got.size() || want.empty()) return std::numeric_limits<double>::infinity();
  double sq = 0.0, mag = std::numeric_limits<double>::min();
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]) || std::isnan(got[i])) return std::numeric_limits<double>::quiet_NaN();
    sq += (want[i] - got[i]) * (want[i] - got[i]);
    mag = std::max({mag, std::fabs(want[i]), std::fabs(got[i])});
  }
  for (const double c : conv)
    mag = std::max(mag, std::fabs(c));
  return std::sqrt(sq) / (std::sqrt(static_cast<double>(want.size())) * mag);
}

// Every mode, with parameters that make each one differ from its plain form (a gamma of 2 for
// POWER keeps it smooth: a power below 1 has an infinite slope where its argument reaches 0).
inline std::vector<ref::ActivationDesc> every_activation() {
  return {{miopenActivationPASTHRU, 0.0, 0.0, 0.0},   {miopenActivationLOGISTIC, 0.0, 0.0, 0.0},
          {miopenActivationTANH, 0.7, 1.3, 0.0},      {miopenActivationRELU, 0.0, 0.0, 0.0},
          {miopenActivationSOFTRELU, 0.0, 0.0, 0.0},  {miopenActivationABS, 0.0, 0.0, 0.0},
          {miopenActivationPOWER, 0.5, 0.8, 2.0},     {miopenActivationCLIPPEDRELU, 0.8, 0.0, 0.0},
          {miopenActivationLEAKYRELU, 0.1, 0.0, 0.0}, {miopenActivationELU, 0.6, 0.0, 0.0}};
}

// The library's fp32 parameters of a mode (as ActivationProblem::params() derives them).
inline FusedActivation fused(const ref::ActivationDesc& a, miopenDataType_t type) {
  FusedActivation f;
  f.mode = a.mode;
  f.params.alpha = static_cast<float>(a.alpha);
  f.params.beta = static_cast<float>(a.beta);
  f.params.gamma = static_cast<float>(a.gamma);
  f.params.eps = type == miopenFloat ? 1e-6f : 1e-4f;
  f.params.diff_scale = static_cast<float>(a.beta * a.gamma);
  return f;
}

// Logical (N, C, D, H, W order) index -> storage offset of a 4-D / 5-D tensor, and the channel
// and position-in-image of a logical index.
struct LogicalMap {
  std::vector<size_t> lens, strides;
  size_t channels = 1, spatial = 1;
  explicit LogicalMap(const driver::HostTensor& t) : lens(t.lens), strides(t.strides) {
    channels = lens[1];
    for (size_t i = 2; i < lens.size(); ++i)
      spatial *= lens[i];
  }
  size_t count() const { return lens[0] * channels * spatial; }
  size_t channel(size_t i) const { return i / spatial % channels; }
  size_t offset(size_t i) const {
    size_t off = 0;
    for (size_t k = lens.size(); k-- > 0;) {
      off += i % lens[k] * strides[k];
      i /= lens[k];
    }
    return off;
  }
};

// The epilogue in double on the convolution's logical output:
//   act(conv * scale[k] + ra * z + shift[k]), each term optional (empty vectors: absent).
inline std::vector<double> epilogue_reference(const std::vector<double>& conv, size_t channels,
                                              size_t spatial, const std::vector<double>& scale,
                                              const std::vector<double>& shift,
                                              const std::vector<double>& z, double ra,
                                              const ref::ActivationDesc& a) {
  std::vector<double> out(conv.size());
  for (size_t i = 0; i < conv.size(); ++i) {
    const size_t k = i / spatial % channels;
    double v = conv[i];
    if (!scale.empty()) v *= scale[k];
    if (!z.empty()) v += ra * z[i];
    if (!shift.empty()) v += shift[k];
    out[i] = ref::activation_forward(a, v);
  }
  return out;
}

// Where the derivative of a mode jumps (in terms of its input).
inline std::vector<double> kinks(const ref::ActivationDesc& a) {
  switch (a.mode) {
    case miopenActivationRELU:
    case miopenActivationLEAKYRELU:
    case miopenActivationABS:
    case miopenActivationELU:
      return {0.0};
    case miopenActivationCLIPPEDRELU:
      return {0.0, a.alpha};
    case miopenActivationPOWER:
      return {-a.alpha / a.beta};
    default:
      return {};
  }
}

// BN parameters of group g in the order of bn_reference.hpp (spatial: channel; per-activation:
// c * S + s) for logical index i.
inline size_t bn_group(const LogicalMap& m, miopenBatchNormMode_t mode, size_t i) {
  return mode == miopenBNSpatial ? m.channel(i) : i % (m.channels * m.spatial);
}

// x for a BN backward with a fused activation: bn(x) = scale * (x - mean) * invstd + bias
// (from the saved statistics) lands at least 0.02 away from every kink of the mode.
inline void draw_backward_x(driver::HostTensor& x, miopenBatchNormMode_t mode,
                            const std::vector<double>& scale, const std::vector<double>& bias,
                            const std::vector<double>& mean, const std::vector<double>& invstd,
                            const ref::ActivationDesc& a, std::mt19937& rng) {
  const LogicalMap m(x);
  const auto ks = kinks(a);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (size_t i = 0; i < m.count(); ++i) {
    const size_t g = bn_group(m, mode, i), off = m.offset(i);
    for (int tries = 0;; ++tries) {
      x.set(off, u(rng));
      const double pre = scale[g] * (x.get(off) - mean[g]) * invstd[g] + bias[g];
      bool far = true;
      for (double k : ks)
        far = far && std::abs(pre - k) > 0.02;
      if (far || tries > 100) break;
    }
  }
}

// BN backward with the activation fused, in double: dy replaced by act'(dy) at bn(x) from the
// saved statistics, then BN backward on it.
inline ref::BnBackwardResult bn_activation_backward_reference(
    const driver::HostTensor& x, const driver::HostTensor& dy, miopenBatchNormMode_t mode,
    const std::vector<double>& scale, const std::vector<double>& bias,
    const std::vector<double>& mean, const std::vector<double>& invstd,
    const ref::ActivationDesc& a) {
  const LogicalMap m(x);
  const auto xs = ref::to_logical(x.view()), dys = ref::to_logical(dy.view());
  std::vector<double> g(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const size_t k = bn_group(m, mode, i);
    const double pre = scale[k] * (xs[i] - mean[k]) * invstd[k] + bias[k];
    g[i] = ref::activation_backward(a, dys[i], pre, ref::activation_forward(a, pre));
  }
  // g in packed logical order, as a double tensor.
  std::vector<size_t> packed(x.lens.size(), 1);
  for (size_t k = x.lens.size() - 1; k-- > 0;)
    packed[k] = packed[k + 1] * x.lens[k + 1];
  const ref::TensorView gv{g.data(), miopenDouble, x.lens, packed};
  return ref::bn_backward(x.view(), gv, mode, scale, 1e-5, mean, invstd);
}

// ---- BN with a fused activation: data of one problem, expected outputs, the checks ----

// relative rms against at least `floor` (bn_solvers_test.cpp's measure: BN outputs are of order
// 1, and a mean near zero would turn rounding into a failure).
inline double bn_error(const std::vector<double>& want, const std::vector<double>& got,
                       double floor = 0.1) {
  if (want.size() != got.size()) return INFINITY;
  double peak = floor, sum = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    peak = std::max({peak, std::abs(want[i]), std::abs(got[i])});
    sum += (want[i] - got[i]) * (want[i] - got[i]);
  }
  return std::sqrt(sum / std::max<size_t>(1, want.size())) / peak;
}

inline double bn_tolerance(miopenDataType_t t) {
  return t == miopenFloat ? 1e-4 : t == miopenHalf ? 5e-4 : 4e-3;
}

inline std::vector<double> vals(const driver::HostTensor& t) {
  return ref::to_logical(t.view());
}

// ---------------------------------------------------------------------------------------------
// BN data of one problem: inputs drawn, expected outputs of a direction with an activation.

struct BnData {
  TensorDescriptor x_desc, p_desc;
  miopenBatchNormMode_t mode;
  driver::HostTensor x, dy, scale, bias, mean, var;
  BnData(const TensorDescriptor& xd, miopenDataType_t ptype, miopenBatchNormMode_t m,
         std::mt19937& rng)
      : x_desc(xd),
        p_desc(ptype, derive_bn_descriptor(xd, m).lens()),
        mode(m),
        x(host_tensor(xd)),
        dy(host_tensor(xd)),
        scale(host_tensor(p_desc)),
        bias(host_tensor(p_desc)),
        mean(host_tensor(p_desc)),
        var(host_tensor(p_desc)) {
    fill_random(x, rng);
    fill_random(dy, rng);
    scale.fill_uniform(rng, 0.5, 1.5, 1.0);
    bias.fill_uniform(rng, -0.5, 0.5, 1.0);
    mean.fill_uniform(rng, -0.2, 0.2, 1.0);
    var.fill_uniform(rng, 0.5, 1.5, 1.0);  // estimated variance, or saved inverse std
  }
};

// BN epsilon and averaging factor of the BN tests.
inline constexpr double kBnEps = 1e-3, kBnFactor = 0.1;

// The expected data output (and, for training, the saved / running statistics; for backward,
// dscale / dbias) of `dir` with activation `a`.
struct BnWant {
  std::vector<double> out, m, v, saved_m, saved_v, ds, db;
};

inline BnWant bn_want(BnData& d, BnDirection dir, const ref::ActivationDesc& a, std::mt19937& rng) {
  BnWant w;
  const auto sc = vals(d.scale), bi = vals(d.bias), me = vals(d.mean), va = vals(d.var);
  if (dir == BnDirection::Backward) {
    draw_backward_x(d.x, d.mode, sc, bi, me, va, a, rng);
    const auto r = bn_activation_backward_reference(d.x, d.dy, d.mode, sc, bi, me, va, a);
    w.out = r.dx;
    w.ds = r.dscale;
    w.db = r.dbias;
    return w;
  }
  if (dir == BnDirection::ForwardInference) {
    w.out = ref::bn_forward_inference(d.x.view(), d.mode, sc, bi, me, va, kBnEps);
  } else {
    const auto r = ref::bn_forward_training(d.x.view(), d.mode, sc, bi, kBnEps, kBnFactor, me, va);
    w.out = r.y;
    w.m = r.running_mean;
    w.v = r.running_var;
    w.saved_m = r.mean;
    w.saved_v = r.invstd;
  }
  w.out = ref::activation_forward(a, w.out);
  return w;
}

// Checks the outputs a run wrote against `w`.
inline void check_bn(const BnData& d, BnDirection dir, const BnWant& w,
                     const driver::HostTensor& out, const driver::HostTensor& m,
                     const driver::HostTensor& v, const driver::HostTensor& sm,
                     const driver::HostTensor& sv, const driver::HostTensor& ds,
                     const driver::HostTensor& db) {
  const double tol = bn_tolerance(d.x_desc.type());
  EXPECT_LE(bn_error(w.out, vals(out)), tol) << "data output";
  if (dir == BnDirection::ForwardTraining) {
    EXPECT_LE(bn_error(w.m, vals(m)), tol) << "running mean";
    EXPECT_LE(bn_error(w.v, vals(v)), tol) << "running variance";
    EXPECT_LE(bn_error(w.saved_m, vals(sm)), tol) << "saved mean";
    EXPECT_LE(bn_error(w.saved_v, vals(sv)), tol) << "saved inverse std";
  }
  if (dir == BnDirection::Backward) {
    const double terms = static_cast<double>(w.out.size()) / std::max<size_t>(1, w.ds.size());
    const double floor = std::max(1.0, 0.5 * std::sqrt(terms));
    EXPECT_LE(bn_error(w.ds, vals(ds), floor), tol) << "dscale";
    EXPECT_LE(bn_error(w.db, vals(db), floor), tol) << "dbias";
  }
}

}  // namespace anydnn::test
