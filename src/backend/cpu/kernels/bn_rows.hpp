// The vector loops of the batch-normalization solvers, per instruction set. Two shapes:
//   - "runs" loops over stretches of one statistics group (NCHW planes, or pieces of one):
//     scalar coefficients;
//   - "lane" loops over a row whose element i belongs to group i (an NHWC pixel's channels, or
//     an image's positions in per-activation mode): coefficient vectors.
// All in fp32; solvers convert fp16/bf16 into small fp32 buffers first.
#pragma once

#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

struct BnRowOps {
  // "Runs": `runs` stretches of `len` values of one group, `stride` apart (an NCHW channel's
  // planes, or pieces of one plane). Grouping several short planes into one call keeps the
  // call and combining overhead off small maps (7x7).
  // Mean and sum of squared deviations from it (two passes; the data should be in L1).
  void (*runs_mean_m2)(const float* x, long runs, long len, long stride, double* mean,
                       double* m2) = nullptr;
  // Sum; then the sum of deviations from `mean` and of their squares (the two passes of exact
  // statistics over data that stays in cache between them).
  double (*runs_sum)(const float* x, long runs, long len, long stride) = nullptr;
  void (*runs_dev)(const float* x, long runs, long len, long stride, float mean, double* dev,
                   double* sq) = nullptr;
  // y = a * (x - m) + b   (centred first: no cancellation when the mean is large). `stream`:
  // non-temporal stores, for outputs too large to stay in cache (no read-for-ownership).
  void (*runs_affine)(const float* x, long xs, long runs, long len, float a, float m, float b,
                      float* y, long ys, bool stream) = nullptr;
  // sum dy and sum dy * (x - mean)
  void (*runs_dy_sums)(const float* dy, long dys, const float* x, long xs, long runs, long len,
                       float mean, double* sum_dy, double* sum_dy_xc) = nullptr;
  // dx = a * dy + b * (x - m) + c
  void (*runs_dx)(const float* dy, long dys, const float* x, long xs, long runs, long len, float a,
                  float b, float m, float c, float* dx, long dxs, bool stream) = nullptr;
  // dst = src for `runs` stretches of `len` values; `stream` as above. Moves an output finished
  // in an L1 buffer (a fused activation applied there) to its place.
  void (*runs_copy)(const float* src, long ss, long runs, long len, float* dst, long ds,
                    bool stream) = nullptr;

  // acc[i] += x[i]
  void (*lane_add)(float* acc, const float* x, long n) = nullptr;
  // dev[i] += x[i] - mean[i]; sq[i] += (x[i] - mean[i])^2  (dev corrects a rounded mean)
  void (*lane_add_dev)(float* dev, float* sq, const float* x, const float* mean, long n) = nullptr;
  // y[i] = a[i] * (x[i] - m[i]) + b[i]
  void (*lane_affine)(const float* x, const float* a, const float* m, const float* b, float* y,
                      long n) = nullptr;
  // s[i] += dy[i]; sx[i] += dy[i] * (x[i] - mean[i])
  void (*lane_dy_sums)(float* s, float* sx, const float* dy, const float* x, const float* mean,
                       long n) = nullptr;
  // dx[i] = a[i] * dy[i] + b[i] * (x[i] - m[i]) + c[i]
  void (*lane_dx)(const float* dy, const float* x, const float* a, const float* b, const float* m,
                  const float* c, float* dx, long n) = nullptr;
};

const BnRowOps& bn_row_ops(CpuIsa isa);
const BnRowOps& bn_row_ops_generic();
const BnRowOps& bn_row_ops_avx2();
const BnRowOps& bn_row_ops_avx512();

}  // namespace anydnn::cpu
