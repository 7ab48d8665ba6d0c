// Small vector loops per instruction set, for the direct kernels that work row by row
// (depthwise convolution): y[i] += a * x[i * stride] and the dot product sum g[i] * x[i * stride].
#pragma once

#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

struct VectorOps {
  void (*axpy)(float* y, const float* x, long stride, float a, long n) = nullptr;
  // y[i * stride] += a * x[i]
  void (*axpy_scatter)(float* y, long stride, const float* x, float a, long n) = nullptr;
  float (*dot)(const float* g, const float* x, long stride, long n) = nullptr;
  // A whole depthwise output plane from a zero-padded input plane (rows `ld` apart):
  // out[oh][ow] = sum_{r,s} taps[r][s] * in[oh*sh + r*dh][ow*sw + s*dw].
  void (*depthwise_plane)(const float* in, long ld, const float* taps, long R, long S, int sh,
                          int sw, int dh, int dw, float* out, long OH, long OW) = nullptr;
};

const VectorOps& vector_ops(CpuIsa isa);
const VectorOps& vector_ops_generic();
const VectorOps& vector_ops_avx2();
const VectorOps& vector_ops_avx512();

}  // namespace anydnn::cpu
