// What every CPU batch-normalization solver shares: the per-group arithmetic of MIOpen's
// definitions (shared/reference/miopen.md §e), kept apart from the data loops, plus fp16/bf16
// staging of runs of data.
//
// A solver's loops produce per-group statistics (mean and sum of squared deviations) and
// backward sums; BnCall turns them into the coefficients of the elementwise passes
//   forward   y  = a*(x - m) + b           a = scale*invstd, m = mean, b = bias
//   backward  dx = a*dy + b*(x - m) + c    a = scale*invstd, b = -a*invstd*dscale/M,
//                                          c = -a*dbias/M
// (centred on the mean, so a large mean with a small spread loses no digits)
// and writes the per-group outputs (saved mean / inverse std, running mean / variance,
// dscale / dbias) once at the end. Calls for different groups may run concurrently.
#pragma once

#include <cmath>
#include <type_traits>
#include <vector>

#include "backend/cpu/cpu_types.hpp"
#include "bn/bn_problem.hpp"
#include "bn/bn_solver.hpp"

namespace anydnn::cpu {

class BnCall {
 public:
  BnCall(const BnProblem& p, const BnBuffers& b);

  // Whether the solver must compute mean and variance from x (training, inference without
  // estimates, backward without saved statistics).
  bool needs_stats() const { return needs_stats_; }
  // Chan's parallel combination of (count, mean, m2) partial statistics.
  static void combine(double& n, double& mean, double& m2, double nb, double mean_b, double m2_b);
  // The statistics of group g over its M values.
  void set_stats(size_t g, double mean, double m2);
  // Forward coefficients of group g (after set_stats when needs_stats()); backward with a fused
  // activation too, from the saved statistics (bn(x), whose derivative the activation takes).
  void forward_coefs(size_t g, float* a, float* m, float* b) const;
  // Mean used by the backward sums of group g.
  float mean_of(size_t g) const { return static_cast<float>(mean_[g]); }
  // Backward: sum dy and sum dy*(x - mean) of group g; then its dx coefficients.
  void set_backward_sums(size_t g, double sum_dy, double sum_dy_xc);
  void dx_coefs(size_t g, float* a, float* b, float* m, float* c) const;
  // The same for groups [g0, g0 + n) at once (per-activation mode has one group per position:
  // these loops vectorise where a call per group would not). Statistics come as the float
  // mean of each group and the sums of deviations from it and of their squares.
  void set_stats_range(size_t g0, long n, const float* mean, const float* dev, const float* sq);
  void forward_coefs_range(size_t g0, long n, float* a, float* m, float* b) const;
  void set_backward_sums_range(size_t g0, long n, const float* sum_dy, const float* sum_dy_xc);
  void dx_coefs_range(size_t g0, long n, float* a, float* b, float* m, float* c) const;
  // Writes the per-group outputs of the call to the user's buffers.
  void finish() const;

  size_t groups() const { return groups_; }
  double group_size() const { return m_; }
  // Data writes may go straight to the output (alpha 1, beta 0) or need blending.
  bool plain_output() const { return plain_; }
  float alpha() const { return alpha_; }
  float beta() const { return beta_; }

 private:
  const BnProblem& p_;
  const BnBuffers& b_;
  size_t groups_;
  double m_;
  bool needs_stats_, plain_;
  float alpha_, beta_;
  std::vector<float> scale_, bias_;
  std::vector<double> mean_, var_, invstd_;
  std::vector<double> dscale_, dbias_;
};

// Reads a parameter tensor (1xCx1x1 or 1xCxDxHxW, any strides, float or the data type) into
// group order (c, or c*S + s).
std::vector<double> load_bn_param(const TensorDescriptor& d, const void* data);
// Writes group-ordered values into a parameter tensor: v * alpha + beta * old (beta 0 ignores
// the old contents).
void store_bn_param(const TensorDescriptor& d, void* data, const std::vector<double>& v,
                    double alpha = 1.0, double beta = 0.0);

// fp32 view of n elements: the data itself for float, else converted into buf.
template <class T>
const float* load_run(const T* src, long n, float* buf) {
  if constexpr (std::is_same_v<T, float>) {
    (void)n;
    (void)buf;
    return src;
  } else {
    for (long i = 0; i < n; ++i)
      buf[i] = to_float(src[i]);
    return buf;
  }
}

// Where a pass should write n outputs: the destination itself when it is float and no blending
// is needed, else buf (then store_run).
template <class T>
float* out_run(T* dst, float* buf, bool plain) {
  if constexpr (std::is_same_v<T, float>) {
    if (plain) return dst;
  }
  (void)dst;
  return buf;
}

// dst = alpha * src + beta * dst (beta 0: dst's old contents, NaN included, are ignored).
template <class T>
void store_run(T* dst, const float* src, long n, float alpha, float beta) {
  if constexpr (std::is_same_v<T, float>) {
    if (src == dst) return;
  }
  if (beta == 0.0f) {
    for (long i = 0; i < n; ++i)
      dst[i] = from_float<T>(alpha * src[i]);
  } else {
    for (long i = 0; i < n; ++i)
      dst[i] = from_float<T>(alpha * src[i] + beta * to_float(dst[i]));
  }
}

// The same for `runs` stretches of `len` values, `stride` apart; a converted copy is packed
// (stride len) into buf, which holds runs * len floats. `out_stride` receives the view's stride.
template <class T>
const float* load_runs(const T* src, long runs, long len, long stride, float* buf,
                       long& out_stride) {
  if constexpr (std::is_same_v<T, float>) {
    (void)buf;
    out_stride = stride;
    return src;
  } else {
    for (long r = 0; r < runs; ++r)
      for (long i = 0; i < len; ++i)
        buf[r * len + i] = to_float(src[r * stride + i]);
    out_stride = len;
    return buf;
  }
}

template <class T>
float* out_runs(T* dst, long stride, float* buf, long len, bool plain, long& out_stride) {
  if constexpr (std::is_same_v<T, float>) {
    if (plain) {
      out_stride = stride;
      return dst;
    }
  }
  (void)dst;
  (void)stride;
  out_stride = len;
  return buf;
}

template <class T>
void store_runs(T* dst, long stride, const float* src, long src_stride, long runs, long len,
                float alpha, float beta) {
  for (long r = 0; r < runs; ++r)
    store_run(dst + r * stride, src + r * src_stride, len, alpha, beta);
}

// Per-thread scratch of `floats` floats for each of `count` buffers.
struct BnScratch {
  BnScratch(int threads, int count, size_t floats)
      : floats_(floats), count_(count), data_(static_cast<size_t>(threads) * count * floats) {}
  float* get(int thread, int which) {
    return data_.data() + (static_cast<size_t>(thread) * count_ + which) * floats_;
  }

 private:
  size_t floats_;
  int count_;
  std::vector<float> data_;
};

}  // namespace anydnn::cpu
