// Helpers shared by the GEMM-based CPU solvers: a column-slab split of one SGEMM over the
// threads of a parallel region, and fp32 staging of half/bfloat16 tensors.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "backend/cpu/cpu_types.hpp"
#include "problem/conv_problem.hpp"
#include "solver/conv_solver.hpp"

namespace anydnn::cpu {

// Row-major C[m x n] = alpha * op(A) * op(B) + beta * C, computed by the calling thread for its
// share of C's columns (thread t of nt). Call it from every thread of a parallel region: the
// shares are disjoint, so no synchronisation is needed, and OpenBLAS (OpenMP build) runs
// single-threaded inside the region. a_trans: A is stored [k x m]; b_trans: B is stored [n x k].
void sgemm_column_share(int t, int nt, bool a_trans, bool b_trans, int m, int n, int k, float alpha,
                        const float* a, int lda, const float* b, int ldb, float beta, float* c,
                        int ldc);

// Columns per im2col/col2im tile so that `rows` x tile floats stay near `bytes` (an L2 share).
size_t gemm_tile_columns(size_t rows, size_t columns, size_t bytes);

// fp32 view of a tensor of `count` elements: the tensor itself for float, else its widened copy
// in `scratch` (count floats), made by the calling parallel region.
template <class T>
const float* widen_in_region(const void* src, size_t count, float* scratch) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<const float*>(src);
  } else {
    const T* s = static_cast<const T*>(src);
#pragma omp for schedule(static)
    for (long i = 0; i < static_cast<long>(count); ++i)
      scratch[i] = to_float(s[i]);
    return scratch;
  }
}

template <class T>
void narrow_in_region(const float* src, void* dst, size_t count) {
  if constexpr (!std::is_same_v<T, float>) {
    T* d = static_cast<T*>(dst);
#pragma omp for schedule(static)
    for (long i = 0; i < static_cast<long>(count); ++i)
      d[i] = from_float<T>(src[i]);
  }
}

// Floats of staging a tensor of `count` elements needs: 0 for fp32.
inline size_t staging_floats(miopenDataType_t type, size_t count) {
  return type == miopenFloat ? 0 : count;
}

}  // namespace anydnn::cpu

namespace anydnn::cpu {

// The GEMM solvers' common requirements: packed NCHW / NCDHW tensors of a float type and GEMM
// dimensions that fit cblas's int arguments.
Applicability gemm_problem_support(const ConvProblem& p);

// Sizes every GEMM solver works with: per group, rows = C/G * filter taps of the column matrix,
// k/c per group, and output pixels per image.
struct GemmShape {
  size_t groups, c_per_group, k_per_group, taps, rows, pixels, x_image, y_image;
  explicit GemmShape(const ConvProblem& p);
};

}  // namespace anydnn::cpu

namespace anydnn::cpu {

// A 1x1 convolution with unit stride and no padding is a plain GEMM per image and group: the
// image is already the column matrix (dilation has no effect with one tap).
inline Applicability gemm_1x1_support(const ConvProblem& p) {
  ANYDNN_REJECT_IF(p.filter_size() != (std::array<size_t, 3>{1, 1, 1}), "filter is not 1x1");
  ANYDNN_REJECT_IF(p.strides() != (std::array<int, 3>{1, 1, 1}), "stride is not 1");
  ANYDNN_REJECT_IF(p.pads() != (std::array<int, 3>{0, 0, 0}), "padding is not 0");
  return gemm_problem_support(p);
}

}  // namespace anydnn::cpu
