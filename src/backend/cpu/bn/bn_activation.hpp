// The CPU side of a BN solver's fused activation (BnBuffers::activation,
// activation/fused_epilogue.hpp): the loops the BN solvers call on a run of fp32 values they hold
// in L1 (one chunk, one NHWC row, one block of positions), so that y = act(bn(x)) is written once
// and the backward's dy is replaced on the fly, in both of its passes, by the activation's
// derivative at bn(x) (recomputed from the saved statistics as MIOpen's fused kernel does). The
// arithmetic is activ::forward / activ::backward (activation/activation_math.hpp), compiled for
// the CPU's instruction set and chosen once per call.
#pragma once

#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"
#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

// What the CPU BN solvers take: any mode, forward always, backward with the saved statistics.
Applicability cpu_bn_activation_support(const BnProblem& p);

class BnActivationRows {
 public:
  BnActivationRows(const FusedActivation* a, CpuIsa isa);
  bool active() const { return fwd_ != nullptr; }

  // v[i] = act(v[i]), in place.
  void forward(float* v, long n) const { fwd_(v, n, params_); }
  // g[i] = act'(dy[i]) at pre = a * (x[i] - m) + b, with per-element coefficients (a[i], m[i],
  // b[i]) when `lanes`, else the scalars a[0], m[0], b[0]. g may be dy.
  void backward(const float* dy, const float* x, const float* a, const float* m, const float* b,
                bool lanes, float* g, long n) const {
    (lanes ? bwd_lanes_ : bwd_)(dy, x, a, m, b, g, n, params_);
  }

  using FwdFn = void (*)(float*, long, const activ::ActivParams&);
  using BwdFn = void (*)(const float*, const float*, const float*, const float*, const float*,
                         float*, long, const activ::ActivParams&);

 private:
  FwdFn fwd_ = nullptr;
  BwdFn bwd_ = nullptr, bwd_lanes_ = nullptr;
  activ::ActivParams params_;
};

}  // namespace anydnn::cpu
