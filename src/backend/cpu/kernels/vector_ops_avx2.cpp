// AVX2 vector loops (vector_ops.hpp; rules of gemm_tile_avx512.cpp): unit strides in vectors,
// scalar tails and strides.
#include <immintrin.h>

#include "backend/cpu/kernels/vector_ops.hpp"

namespace anydnn::cpu {

namespace {

void axpy(float* y, const float* x, long stride, float a, long n) {
  long i = 0;
  if (stride == 1) {
    const __m256 va = _mm256_set1_ps(a);
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  }
  for (; i < n; ++i)
    y[i] += a * x[i * stride];
}

void axpy_scatter(float* y, long stride, const float* x, float a, long n) {
  if (stride == 1) return axpy(y, x, 1, a, n);
  for (long i = 0; i < n; ++i)
    y[i * stride] += a * x[i];
}

float dot(const float* g, const float* x, long stride, long n) {
  long i = 0;
  float s = 0.0f;
  if (stride == 1) {
    __m256 acc = _mm256_setzero_ps();
    for (; i + 8 <= n; i += 8)
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(g + i), _mm256_loadu_ps(x + i), acc);
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, acc);
    for (float l : lanes)
      s += l;
  }
  for (; i < n; ++i)
    s += g[i] * x[i * stride];
  return s;
}

void depthwise_plane(const float* in, long ld, const float* taps, long R, long S, int sh, int sw,
                     int dh, int dw, float* out, long OH, long OW) {
  for (long oh = 0; oh < OH; ++oh) {
    float* o = out + oh * OW;
    long ow = 0;
    if (sw == 1) {
      for (; ow + 8 <= OW; ow += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (long r = 0; r < R; ++r) {
          const float* row = in + (oh * sh + r * dh) * ld + ow;
          for (long s = 0; s < S; ++s)
            acc = _mm256_fmadd_ps(_mm256_set1_ps(taps[r * S + s]), _mm256_loadu_ps(row + s * dw),
                                  acc);
        }
        _mm256_storeu_ps(o + ow, acc);
      }
    }
    for (; ow < OW; ++ow) {
      float acc = 0.0f;
      for (long r = 0; r < R; ++r)
        for (long s = 0; s < S; ++s)
          acc += taps[r * S + s] * in[(oh * sh + r * dh) * ld + ow * sw + s * dw];
      o[ow] = acc;
    }
  }
}

}  // namespace

const VectorOps& vector_ops_avx2() {
  static const VectorOps ops{&axpy, &axpy_scatter, &dot, &depthwise_plane};
  return ops;
}

}  // namespace anydnn::cpu
