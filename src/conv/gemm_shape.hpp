// The GEMM view of a convolution that every backend's GEMM solvers share: the shapes of the
// per-group GEMMs and which problems a BLAS GEMM can take. Backend-agnostic: the backends differ
// only in the BLAS they call (GemmBlas), not in the arithmetic of the shapes.
#pragma once

#include <cstddef>

#include "conv/conv_problem.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The BLAS a backend's GEMM solvers call, as far as applicability cares: its name (in the
// rejection reason) and whether the batch and group counts are int arguments too (cuBLAS's
// strided-batched GEMM; cblas is called per image and group).
struct GemmBlas {
  const char* name;
  bool batch_is_int;
};
inline constexpr GemmBlas kCblas{"cblas", false};
inline constexpr GemmBlas kCublas{"cuBLAS", true};

// Sizes every GEMM solver works with: per group, rows = C/G * filter taps of the column matrix,
// k/c per group, and output pixels per image; and element counts of one image of x and y.
struct GemmShape {
  size_t groups, c_per_group, k_per_group, taps, rows, pixels, x_image, y_image;
  explicit GemmShape(const ConvProblem& p);
};

// The GEMM solvers' common requirements: packed NCHW / NCDHW tensors of a float type and GEMM
// dimensions that fit the BLAS's int arguments.
Applicability gemm_problem_support(const ConvProblem& p, const GemmBlas& blas);

// A 1x1 convolution with unit stride and no padding is a plain GEMM per image and group: the
// image is already the column matrix (dilation has no effect with one tap).
Applicability gemm_1x1_support(const ConvProblem& p, const GemmBlas& blas);

}  // namespace anydnn
