// Helpers shared by the GEMM-based CPU solvers (the shapes and support checks are
// backend-agnostic, in conv/gemm_shape.hpp): a column-slab split of one SGEMM over the threads of
// a parallel region, and fp32 staging of half/bfloat16 tensors.
#pragma once

#include <omp.h>

#include <array>
#include <cstddef>
#include <type_traits>

#include "backend/cpu/cpu_types.hpp"
#include "backend/cpu/kernels/row_epilogue.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv/gemm_shape.hpp"

namespace anydnn::cpu {

// Row-major C[m x n] = alpha * op(A) * op(B) + beta * C, computed by the calling thread for its
// share of C's columns (thread t of nt). Call it from every thread of a parallel region: the
// shares are disjoint, so no synchronisation is needed, and OpenBLAS (OpenMP build) runs
// single-threaded inside the region. a_trans: A is stored [k x m]; b_trans: B is stored [n x k].
// With an `epilogue` (rows of C are its channels 0..m-1), the share is computed in column chunks
// that stay in L2 and each chunk goes through the epilogue right after its GEMM.
void sgemm_column_share(int t, int nt, bool a_trans, bool b_trans, int m, int n, int k, float alpha,
                        const float* a, int lda, const float* b, int ldb, float beta, float* c,
                        int ldc, const RowEpilogue& epilogue = {});

// Columns per im2col/col2im tile so that `rows` x tile floats stay near `bytes` (an L2 share).
size_t gemm_tile_columns(size_t rows, size_t columns, size_t bytes);

// The weights as the A matrix of a GEMM tile (rows x row_floats): w itself, or a copy with
// padded rows where w's rows would alias in L1 (padded_lda in kernels/gemm_tile.hpp).
struct WeightsA {
  long rows = 0, row_floats = 0, lda = 0;
  WeightsA(long rows_, long row_floats_);
  size_t buffer_floats() const;  // scratch a copy needs (0: none)
  // Called by every thread of a parallel region (work-shared copy, then a barrier).
  const float* prepare(const float* w, float* buffer) const;
};

// The problem's tensors as packed fp32 arrays: x, w, y as the solver reads them, and the one the
// direction writes (out aliases x, w or y).
struct FloatTensors {
  const float* x;
  const float* w;
  const float* y;
  float* out;
};

// Floats of scratch run_staged needs: none for fp32; a copy of every tensor for 16-bit types.
size_t staging_floats(const ConvProblem& p);

// Runs body(tensors, thread, threads) on every thread of one parallel region, with the tensors
// in fp32: fp32 buffers are used in place; 16-bit inputs are widened into `scratch` first and the
// output is computed there and narrowed into the caller's buffer after the body.
template <class T, class Body>
void run_staged(const ConvProblem& p, const ConvBuffers& b, float* scratch, int threads,
                Body&& body) {
  const GemmShape s(p);
  const size_t counts[3] = {p.batch() * s.x_image, p.out_channels() * s.rows,
                            p.batch() * s.y_image};
  void* const buffers[3] = {b.x, b.w, b.y};
  const int out = p.direction() == ConvDirection::BackwardData      ? 0
                  : p.direction() == ConvDirection::BackwardWeights ? 1
                                                                    : 2;
  // fp32 runs in place with no scratch (null): no offsets from a null pointer.
  float* staged[3] = {scratch, scratch ? scratch + counts[0] : nullptr,
                      scratch ? scratch + counts[0] + counts[1] : nullptr};
#pragma omp parallel num_threads(threads)
  {
    const float* f[3];
    for (int i = 0; i < 3; ++i) {
      if constexpr (std::is_same_v<T, float>) {
        f[i] = static_cast<const float*>(buffers[i]);
      } else {
        f[i] = staged[i];
        if (i != out) {
          const T* src = static_cast<const T*>(buffers[i]);
#pragma omp for schedule(static)
          for (long e = 0; e < static_cast<long>(counts[i]); ++e)
            staged[i][e] = to_float(src[e]);
        }
      }
    }
    FloatTensors tensors{f[0], f[1], f[2], const_cast<float*>(f[out])};
    body(tensors, omp_get_thread_num(), omp_get_num_threads());
    if constexpr (!std::is_same_v<T, float>) {
#pragma omp barrier
      T* dst = static_cast<T*>(buffers[out]);
#pragma omp for schedule(static)
      for (long e = 0; e < static_cast<long>(counts[out]); ++e)
        dst[e] = from_float<T>(staged[out][e]);
    }
  }
}

}  // namespace anydnn::cpu
