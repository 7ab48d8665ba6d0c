// AVX-512 vector loops (vector_ops.hpp; rules of gemm_tile_avx512.cpp): unit strides in
// vectors with a masked tail, other strides through gathers.
#include <immintrin.h>

// GCC 12's masked gather intrinsics start from _mm512_undefined_ps() and trip its own
// -Wmaybe-uninitialized (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "backend/cpu/kernels/vector_ops.hpp"

namespace anydnn::cpu {

namespace {

__mmask16 tail(long n) {
  return static_cast<__mmask16>((1u << n) - 1);
}

__m512i lane_index(long stride) {
  return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                            _mm512_set1_epi32(static_cast<int>(stride)));
}

void axpy(float* y, const float* x, long stride, float a, long n) {
  const __m512 va = _mm512_set1_ps(a);
  long i = 0;
  if (stride == 1) {
    for (; i + 16 <= n; i += 16)
      _mm512_storeu_ps(y + i, _mm512_fmadd_ps(va, _mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
    if (i < n) {
      const __mmask16 m = tail(n - i);
      _mm512_mask_storeu_ps(
          y + i, m,
          _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i)));
    }
    return;
  }
  const __m512i idx = lane_index(stride);
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(va, _mm512_i32gather_ps(idx, x + i * stride, 4),
                                            _mm512_loadu_ps(y + i)));
  for (; i < n; ++i)
    y[i] += a * x[i * stride];
}

void axpy_scatter(float* y, long stride, const float* x, float a, long n) {
  if (stride == 1) return axpy(y, x, 1, a, n);
  for (long i = 0; i < n; ++i)
    y[i * stride] += a * x[i];
}

float dot(const float* g, const float* x, long stride, long n) {
  __m512 acc = _mm512_setzero_ps();
  long i = 0;
  if (stride == 1) {
    for (; i + 16 <= n; i += 16)
      acc = _mm512_fmadd_ps(_mm512_loadu_ps(g + i), _mm512_loadu_ps(x + i), acc);
    if (i < n) {
      const __mmask16 m = tail(n - i);
      acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, g + i), _mm512_maskz_loadu_ps(m, x + i), acc);
    }
    return _mm512_reduce_add_ps(acc);
  }
  const __m512i idx = lane_index(stride);
  for (; i + 16 <= n; i += 16)
    acc = _mm512_fmadd_ps(_mm512_loadu_ps(g + i), _mm512_i32gather_ps(idx, x + i * stride, 4), acc);
  float s = _mm512_reduce_add_ps(acc);
  for (; i < n; ++i)
    s += g[i] * x[i * stride];
  return s;
}

// 16 outputs per vector; unit stride reads the padded row with unaligned loads, other strides
// gather. The padded plane makes every read in range, so only the store is masked.
void depthwise_plane(const float* in, long ld, const float* taps, long R, long S, int sh, int sw,
                     int dh, int dw, float* out, long OH, long OW) {
  const __m512i idx = lane_index(sw);
  for (long oh = 0; oh < OH; ++oh) {
    float* o = out + oh * OW;
    for (long ow = 0; ow < OW; ow += 16) {
      const __mmask16 m = OW - ow >= 16 ? __mmask16(0xffff) : tail(OW - ow);
      __m512 acc = _mm512_setzero_ps();
      for (long r = 0; r < R; ++r) {
        const float* row = in + (oh * sh + r * dh) * ld + ow * sw;
        for (long s = 0; s < S; ++s) {
          const __m512 v =
              sw == 1 ? _mm512_maskz_loadu_ps(m, row + s * dw)
                      : _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, row + s * dw, 4);
          acc = _mm512_fmadd_ps(_mm512_set1_ps(taps[r * S + s]), v, acc);
        }
      }
      _mm512_mask_storeu_ps(o + ow, m, acc);
    }
  }
}

}  // namespace

const VectorOps& vector_ops_avx512() {
  static const VectorOps ops{&axpy, &axpy_scatter, &dot, &depthwise_plane};
  return ops;
}

}  // namespace anydnn::cpu
