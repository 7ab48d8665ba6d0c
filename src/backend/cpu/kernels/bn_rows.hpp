// The vector loops of the batch-normalization solvers, per instruction set. Two shapes:
//   - "run" loops over one contiguous run of a statistics group (an NCHW plane, or a piece of
//     it): scalar coefficients;
//   - "lane" loops over a row whose element i belongs to group i (an NHWC pixel's channels, or
//     an image's positions in per-activation mode): coefficient vectors.
// All in fp32; solvers convert fp16/bf16 into small fp32 buffers first.
#pragma once

#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

struct BnRowOps {
  // Mean and sum of squared deviations from it of x[0..n), two passes (x should be in L1).
  void (*run_mean_m2)(const float* x, long n, double* mean, double* m2) = nullptr;
  // y = a * (x - m) + b   (centred first: no cancellation when the mean is large)
  void (*run_affine)(const float* x, long n, float a, float m, float b, float* y) = nullptr;
  // sum dy and sum dy * (x - mean)
  void (*run_dy_sums)(const float* dy, const float* x, long n, float mean, double* sum_dy,
                      double* sum_dy_xc) = nullptr;
  // dx = a * dy + b * (x - m) + c
  void (*run_dx)(const float* dy, const float* x, long n, float a, float b, float m, float c,
                 float* dx) = nullptr;

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
