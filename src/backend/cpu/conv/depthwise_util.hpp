// Shared by the depthwise solvers (depthwise_{fwd,bwd,wrw}.cpp): which problems they take and
// the geometry they loop over. Depthwise = one input channel per group (groups == C), with any
// channel multiplier m = K / C: output channel k reads input channel k / m. Each output row is
// a sum of R*S shifted, scaled input rows, so the loops run along W and vectorize; there is no
// GEMM to feed (one channel, R*S taps), which is why the GEMM solvers do poorly here.
#pragma once

#include <algorithm>
#include <type_traits>

#include "backend/cpu/cpu_types.hpp"
#include "backend/cpu/kernels/vector_ops.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

Applicability depthwise_support(const ConvProblem& p);

struct DepthwiseShape {
  long N, C, K, mult, H, W, OH, OW, R, S;
  int ph, pw, sh, sw, dh, dw;
  explicit DepthwiseShape(const ConvProblem& p);
  // Output columns ow whose tap s reads inside the input row: [lo, hi).
  void valid_columns(long s, long* lo, long* hi) const;
};

// `plane` (rows x cols of T) as fp32 with `pad_top` / `pad_left` zero rows / columns around it,
// in a buffer of out_rows x out_cols (zeros past the plane as well).
template <class T>
void padded_plane(const T* plane, long rows, long cols, long pad_top, long pad_left, long out_rows,
                  long out_cols, float* buffer) {
  for (long i = 0; i < out_rows; ++i) {
    float* dst = buffer + i * out_cols;
    const long si = i - pad_top;
    if (si < 0 || si >= rows) {
      std::fill(dst, dst + out_cols, 0.0f);
      continue;
    }
    for (long j = 0; j < out_cols; ++j) {
      const long sj = j - pad_left;
      dst[j] = sj >= 0 && sj < cols ? to_float(plane[si * cols + sj]) : 0.0f;
    }
  }
}

// A row of n values as fp32: the row itself for float, else converted into `buffer`.
template <class T>
const float* float_row(const T* row, long n, float* buffer) {
  if constexpr (std::is_same_v<T, float>) {
    return row;
  } else {
    for (long i = 0; i < n; ++i)
      buffer[i] = to_float(row[i]);
    return buffer;
  }
}

}  // namespace anydnn::cpu
