// What every CUDA batch-normalization solver shares (the counterpart of cpu/bn/bn_util.hpp):
// parameter access with any strides and types, the per-group arithmetic of MIOpen's definitions
// (the same formulas as cpu::BnCall, in double), deterministic fp32 reductions, and the kernels
// that turn per-block partials into per-group state.
//
// A solver's kernels produce per-group statistics (mean, sum of squared deviations) and backward
// sums; the group functions below turn them into the coefficients of the elementwise passes
//   forward   y  = k0*(x - k1) + k2             k0 = scale*invstd, k1 = mean (float)
//   backward  dx = k0*dy + k1*(x - k2) + k3     k0 = scale*invstd, k1 = -k0*invstd*dscale/M
// and write the per-group outputs (saved mean / inverse std, running mean / variance, dscale /
// dbias). Reductions never use atomics: every partial is combined in a fixed order, so results
// are bitwise reproducible on a given device.
//
// A fused activation (BnBuffers::activation, activation/fused_epilogue.hpp) rides along in
// GroupArgs: forward passes store act(bn(x)); backward passes replace dy, in the sums and in the
// dx pass alike, by act'(dy) at bn(x) = f0*(x - f1) + f2, the forward coefficients of the saved
// statistics (GroupState::f), so x and dy are still read once per pass.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/fused_epilogue.cuh"
#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"

namespace anydnn::cuda::bn {

constexpr int kThreads = 256;

// A parameter tensor's geometry (1xCx1x1 or 1xCxDxHxW, any strides) and type (float or the
// data type). Parameters are indexed by group in logical order: c, or c*S + s.
struct ParamDesc {
  Dims5 d;
  int type;
};

inline ParamDesc param_desc(const TensorDescriptor& t) {
  return {dims5(t), static_cast<int>(t.type())};
}

__device__ inline float param_load(const ParamDesc& q, const void* p, long long g) {
  const long long o = offset_of(q.d, g);
  if (q.type == miopenHalf) return load(static_cast<const __half*>(p)[o]);
  if (q.type == miopenBFloat16) return load(static_cast<const __nv_bfloat16*>(p)[o]);
  return static_cast<const float*>(p)[o];
}

__device__ inline void param_store(const ParamDesc& q, void* p, long long g, float v) {
  const long long o = offset_of(q.d, g);
  if (q.type == miopenHalf)
    static_cast<__half*>(p)[o] = store<__half>(v);
  else if (q.type == miopenBFloat16)
    static_cast<__nv_bfloat16*>(p)[o] = store<__nv_bfloat16>(v);
  else
    static_cast<float*>(p)[o] = v;
}

enum class Dir : int { Training, Inference, Backward };

// Everything the per-group functions need, passed to kernels by value.
struct GroupArgs {
  ParamDesc scale_d, bias_d, mean_d, var_d;
  const void* scale;
  const void* bias;
  void* run_mean;
  void* run_var;
  void* saved_mean;
  void* saved_invstd;
  void* dscale;
  void* dbias;
  long long groups;
  double m;  // values per group
  double eps, factor;
  Dir dir;
  bool save, running;
  // Whether mean and variance come from x (training, inference without estimates, backward
  // without saved statistics).
  bool needs_stats;
  float alpha_param, beta_param;
  // The fused activation (act false: none).
  bool act;
  miopenActivationMode_t act_mode;
  activ::ActivParams act_params;
};

inline GroupArgs group_args(const BnProblem& p, const BnBuffers& b) {
  GroupArgs a{};
  a.scale_d = param_desc(p.scale());
  a.bias_d = param_desc(p.bias());
  a.mean_d = param_desc(p.mean());
  a.var_d = param_desc(p.var());
  a.scale = b.scale;
  a.bias = b.bias;
  a.run_mean = b.run_mean;
  a.run_var = b.run_var;
  a.saved_mean = b.saved_mean;
  a.saved_invstd = b.saved_invstd;
  a.dscale = b.dscale;
  a.dbias = b.dbias;
  a.groups = static_cast<long long>(p.groups());
  a.m = static_cast<double>(p.group_size());
  a.eps = p.epsilon();
  a.factor = p.exp_avg_factor();
  a.save = p.save();
  a.running = p.running();
  switch (p.direction()) {
    case BnDirection::ForwardTraining:
      a.dir = Dir::Training;
      a.needs_stats = true;
      break;
    case BnDirection::ForwardInference:
      a.dir = Dir::Inference;
      a.needs_stats = !p.running();
      break;
    case BnDirection::Backward:
      a.dir = Dir::Backward;
      a.needs_stats = !p.save();
      break;
  }
  a.alpha_param = b.alpha_param;
  a.beta_param = b.beta_param;
  a.act = b.activation != nullptr;
  a.act_mode = a.act ? b.activation->mode : miopenActivationPASTHRU;
  if (a.act) a.act_params = b.activation->params;
  return a;
}

// What every CUDA BN solver answers to activation_support(): any of MIOpen's modes; backward
// only from saved statistics (bn(x) is recomputed from them).
inline Applicability activation_support(const BnProblem& p, miopenActivationMode_t mode) {
  ANYDNN_REJECT_IF(static_cast<int>(mode) < static_cast<int>(miopenActivationPASTHRU) ||
                       static_cast<int>(mode) > static_cast<int>(miopenActivationELU),
                   "not one of MIOpen's activation modes");
  ANYDNN_REJECT_IF(p.direction() == BnDirection::Backward && !p.save(),
                   "backward with a fused activation needs the saved mean and inverse std");
  return Applicability::yes();
}

// Per-group state in device memory between kernels: 48 bytes, so arrays of it stay aligned.
struct GroupState {
  double mean, invstd;
  float k[4];  // coefficients of the elementwise pass (see the top of the file)
  float f[4];  // backward with a fused activation: the forward coefficients, for bn(x)
};

// Statistics from x: biased variance for the normalisation; training also writes the saved
// statistics and updates the running ones (unbiased variance, biased when M = 1), as
// cpu::BnCall::set_stats and finish.
__device__ inline void set_stats(const GroupArgs& a, long long g, double mean, double m2,
                                 GroupState& s) {
  const double var = fmax(m2, 0.0) / a.m;
  s.mean = mean;
  s.invstd = 1.0 / sqrt(var + a.eps);
  if (a.dir != Dir::Training) return;
  if (a.save) {
    param_store(a.mean_d, a.saved_mean, g, static_cast<float>(mean));
    param_store(a.var_d, a.saved_invstd, g, static_cast<float>(s.invstd));
  }
  if (a.running) {
    const double f = a.factor, unbias = a.m > 1.0 ? a.m / (a.m - 1.0) : 1.0;
    const double rm = param_load(a.mean_d, a.run_mean, g);
    const double rv = param_load(a.var_d, a.run_var, g);
    param_store(a.mean_d, a.run_mean, g, static_cast<float>((1.0 - f) * rm + f * mean));
    param_store(a.var_d, a.run_var, g, static_cast<float>((1.0 - f) * rv + f * var * unbias));
  }
}

// Statistics given by the caller: inference estimates or backward saved mean / inverse std.
__device__ inline void load_stats(const GroupArgs& a, long long g, GroupState& s) {
  if (a.dir == Dir::Inference) {
    s.mean = param_load(a.mean_d, a.run_mean, g);
    s.invstd = 1.0 / sqrt(static_cast<double>(param_load(a.var_d, a.run_var, g)) + a.eps);
  } else {
    s.mean = param_load(a.mean_d, a.saved_mean, g);
    s.invstd = param_load(a.var_d, a.saved_invstd, g);
  }
}

// Kernels centre on the float-rounded mean; the coefficients absorb the rounding, which matters
// when the mean is large against the spread.
// Into k[0..3] (forward: s.k; backward with an activation: s.f).
__device__ inline void forward_coefs(const GroupArgs& a, long long g, const GroupState& s,
                                     float* k) {
  const double sa = static_cast<double>(param_load(a.scale_d, a.scale, g)) * s.invstd;
  const float m = static_cast<float>(s.mean);
  k[0] = static_cast<float>(sa);
  k[1] = m;
  k[2] = static_cast<float>(static_cast<double>(param_load(a.bias_d, a.bias, g)) -
                            sa * (s.mean - static_cast<double>(m)));
  k[3] = 0.0f;
}
__device__ inline void forward_coefs(const GroupArgs& a, long long g, GroupState& s) {
  forward_coefs(a, g, s, s.k);
}
// Backward with a fused activation: the forward coefficients of the (saved) statistics in s.f.
__device__ inline void activation_coefs(const GroupArgs& a, long long g, GroupState& s) {
  if (a.act && a.dir == Dir::Backward) forward_coefs(a, g, s, s.f);
}

// out = alpha * v + beta * old (beta 0 ignores the old contents, NaN included).
__device__ inline void blend_param(const ParamDesc& q, void* p, long long g, double v, float alpha,
                                   float beta) {
  const double old = beta == 0.0f ? 0.0 : static_cast<double>(param_load(q, p, g));
  param_store(q, p, g, static_cast<float>(alpha * v + beta * old));
}

// Backward: sum dy and sum dy*(x - m) with m = (float)s.mean, taken by the solver; writes dscale
// and dbias (blended with alpha_param / beta_param) unless `write` is false (another block of the
// group writes them) and the dx coefficients.
__device__ inline void backward_coefs(const GroupArgs& a, long long g, double sum_dy,
                                      double sum_dy_xc, GroupState& s, bool write = true) {
  const float mf = static_cast<float>(s.mean);
  const double rounding = s.mean - static_cast<double>(mf);
  const double dbias = sum_dy, dscale = (sum_dy_xc - rounding * sum_dy) * s.invstd;
  if (write) {
    blend_param(a.scale_d, a.dscale, g, dscale, a.alpha_param, a.beta_param);
    blend_param(a.bias_d, a.dbias, g, dbias, a.alpha_param, a.beta_param);
  }
  const double sa = static_cast<double>(param_load(a.scale_d, a.scale, g)) * s.invstd;
  const float kb = static_cast<float>(-sa * s.invstd * dscale / a.m);
  // One value per group: m * dy - dbias is exactly 0 (MIOpen's order), so the dy and dbias
  // terms, which would only add fp32 rounding noise, go (backend/cpu/bn/bn_util.cpp says more).
  const bool single = a.m == 1.0;
  s.k[0] = single ? 0.0f : static_cast<float>(sa);
  s.k[1] = kb;
  s.k[2] = mf;
  s.k[3] = static_cast<float>((single ? 0.0 : -sa * dbias / a.m) -
                              static_cast<double>(kb) * (s.mean - static_cast<double>(mf)));
}

__device__ inline float apply_forward(const float* k, float x) {
  return k[0] * (x - k[1]) + k[2];
}
__device__ inline float apply_backward(const float* k, float dy, float x) {
  return k[0] * dy + k[1] * (x - k[2]) + k[3];
}

// The fused activation: forward, on bn(x); backward, dy replaced by act'(dy) at bn(x) with
// bn(x) from the forward coefficients f (MIOpen's fused BN + activation backward).
__device__ inline float activation_forward(const GroupArgs& a, float v) {
  return activate(a.act_mode, v, a.act_params);
}
__device__ inline float activation_dy(const GroupArgs& a, const float* f, float dy, float x) {
  const float z = apply_forward(f, x);
  return activate_backward(a.act_mode, dy, z, activate(a.act_mode, z, a.act_params), a.act_params);
}

// *p = alpha * v + beta * *p (beta 0 ignores the old contents, NaN included).
template <class T>
__device__ inline void put(T* p, float v, float alpha, float beta) {
  *p = store<T>(beta == 0.0f ? alpha * v : alpha * v + beta * load(*p));
}

// --- deterministic reductions ---

// (count, mean, sum of squared deviations) of a set of values.
struct Stat {
  double n, mean, m2;
};

// Chan's parallel combination.
__device__ inline Stat combine(const Stat& a, const Stat& b) {
  if (b.n == 0.0) return a;
  if (a.n == 0.0) return b;
  const double t = a.n + b.n, d = b.mean - a.mean;
  return {t, a.mean + d * b.n / t, a.m2 + b.m2 + d * d * a.n * b.n / t};
}

// Backward sums: sum dy, sum dy*(x - m).
struct Sums {
  double s1, s2;
};

__device__ inline Sums combine(const Sums& a, const Sums& b) {
  return {a.s1 + b.s1, a.s2 + b.s2};
}

// A thread's running statistics in fp32: Welford (no cancellation in the squares) on values
// shifted by the thread's first one, so that the running mean rounds relative to the spread, not
// to a large common offset (x - shift is exact for values within a factor of two).
struct Welford {
  float n = 0.0f, shift = 0.0f, mean = 0.0f, m2 = 0.0f;
  __device__ void add(float x) {
    if (n == 0.0f) shift = x;
    n += 1.0f;
    const float v = x - shift, d = v - mean;
    mean += d / n;
    m2 += d * (v - mean);
  }
  __device__ Stat stat() const {
    return {n, static_cast<double>(shift) + static_cast<double>(mean), m2};
  }
};

__device__ inline Stat shfl_down(const Stat& v, int o) {
  return {__shfl_down_sync(0xffffffffu, v.n, o), __shfl_down_sync(0xffffffffu, v.mean, o),
          __shfl_down_sync(0xffffffffu, v.m2, o)};
}
__device__ inline Sums shfl_down(const Sums& v, int o) {
  return {__shfl_down_sync(0xffffffffu, v.s1, o), __shfl_down_sync(0xffffffffu, v.s2, o)};
}

// Reduces one value per thread of a 1-D block (blockDim.x a multiple of 32) in a fixed order:
// a shuffle tree per warp, then the warps in order. The result is valid in thread 0. Every
// thread of the block must call it; it ends with a barrier, so it may be called again.
template <class V>
__device__ V block_reduce(V v) {
  __shared__ V part[32];
  for (int o = 16; o > 0; o >>= 1)
    v = combine(v, shfl_down(v, o));
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w)
      v = combine(v, part[w]);
  __syncthreads();
  return v;
}

// --- host side ---

// Blocks for `items` grid-stride work items of kThreads threads: never more than needed.
inline unsigned item_grid(long long items) {
  constexpr long long kMax = 1 << 20;
  return static_cast<unsigned>(items < 1 ? 1 : (items < kMax ? items : kMax));
}

// Per-call device scratch: the per-group state and the per-block partials of a cross-block
// reduction, in one allocation sized by the grid (groups x blocks per group x 24 bytes: KiB to
// a few MiB), from the backend's allocate(): the handle's stream-ordered pool, so taking it and
// giving it back when run() returns costs no synchronisation, and the kernels enqueued before
// the free are done with it before the pool hands the memory out again.
class Scratch {
 public:
  Scratch(const ExecutionContext& ctx, long long groups, long long partials)
      : groups_(groups),
        buf_(backend_of(ctx).allocate(static_cast<size_t>(groups) * sizeof(GroupState) +
                                      static_cast<size_t>(partials) * sizeof(Stat))) {}
  GroupState* state() const { return static_cast<GroupState*>(buf_.get()); }
  // sizeof(GroupState) keeps this 8-byte aligned.
  void* partials() const { return state() + groups_; }

 private:
  long long groups_;
  DeviceBuffer buf_;
};

// Merges the `nb` Stat partials of each group (partial b of group g at g * nb + b), sets the
// statistics (training: saved / running outputs) and, forward, the coefficients.
void finalize_stats(const GroupArgs& a, const Stat* part, int nb, GroupState* st,
                    cudaStream_t stream);
// Statistics from the estimates (inference) or the saved ones (backward); forward coefficients.
void given_stats(const GroupArgs& a, GroupState* st, cudaStream_t stream);
// Merges the `nb` Sums partials of each group; writes dscale / dbias and the dx coefficients.
void finalize_backward(const GroupArgs& a, const Sums* part, int nb, GroupState* st,
                       cudaStream_t stream);

}  // namespace anydnn::cuda::bn
