// What the two CPU LRN solvers share: typed access to the call's tensors and a 1-D window sum.
#pragma once

#include <vector>

#include "backend/cpu/cpu_types.hpp"
#include "lrn/lrn_math.hpp"
#include "lrn/lrn_solver.hpp"

namespace anydnn::cpu::lrn_cpu {

// out[i] = sum of in[j * stride] for j in [i - before, i + after] clipped to [0, len), for
// `len` elements `stride` apart (the same stride in and out).
inline void window_sum(const float* in, float* out, long long len, long long stride, int before,
                       int after) {
  for (long long i = 0; i < len; ++i) {
    const long long lo = lrn::window_lo(i, before), hi = lrn::window_hi(i, after, len);
    float s = 0.0f;
    for (long long j = lo; j <= hi; ++j)
      s += in[j * stride];
    out[i * stride] = s;
  }
}

// The typed views of one call's buffers.
template <class T>
struct Tensors {
  const T* x;
  T* y;
  const T* dy;
  T* dx;
  T* scale;
  explicit Tensors(const LrnBuffers& b)
      : x(static_cast<const T*>(b.x)),
        y(static_cast<T*>(b.y)),
        dy(static_cast<const T*>(b.dy)),
        dx(static_cast<T*>(b.dx)),
        scale(static_cast<T*>(b.workspace)) {}
};

}  // namespace anydnn::cpu::lrn_cpu
