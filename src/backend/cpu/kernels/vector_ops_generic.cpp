// Portable vector loops (vector_ops.hpp).
#include "backend/cpu/kernels/vector_ops.hpp"

namespace anydnn::cpu {

namespace {

void axpy(float* y, const float* x, long stride, float a, long n) {
  if (stride == 1) {
    for (long i = 0; i < n; ++i)
      y[i] += a * x[i];
  } else {
    for (long i = 0; i < n; ++i)
      y[i] += a * x[i * stride];
  }
}

void axpy_scatter(float* y, long stride, const float* x, float a, long n) {
  for (long i = 0; i < n; ++i)
    y[i * stride] += a * x[i];
}

float dot(const float* g, const float* x, long stride, long n) {
  float s = 0.0f;
  for (long i = 0; i < n; ++i)
    s += g[i] * x[i * stride];
  return s;
}

void depthwise_plane(const float* in, long ld, const float* taps, long R, long S, int sh, int sw,
                     int dh, int dw, float* out, long OH, long OW) {
  for (long oh = 0; oh < OH; ++oh) {
    float* o = out + oh * OW;
    for (long ow = 0; ow < OW; ++ow)
      o[ow] = 0.0f;
    for (long r = 0; r < R; ++r)
      for (long s = 0; s < S; ++s)
        axpy(o, in + (oh * sh + r * dh) * ld + s * dw, sw, taps[r * S + s], OW);
  }
}

}  // namespace

const VectorOps& vector_ops_generic() {
  static const VectorOps ops{&axpy, &axpy_scatter, &dot, &depthwise_plane};
  return ops;
}

}  // namespace anydnn::cpu
