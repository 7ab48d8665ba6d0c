// im2col for one image and a range of output pixels: builds the [C/G * F] x [tile] matrix whose
// product with the [K/G x C/G * F] weight matrix is the convolution of that tile. Shared by the
// GEMM solvers of all directions.
#pragma once

#include <cstddef>

#include "backend/cpu/cpu_types.hpp"
#include "conv/conv_problem.hpp"

namespace anydnn::cpu {

// Fills col[r * tile + j] for rows r = (c, fz, fy, fx) of channels [c_begin, c_begin + c_count)
// and output pixels [p_begin, p_begin + tile) of image `x_image` (pointer to its channel 0).
template <class T>
void im2col_tile(const ConvProblem& p, const T* x_image, size_t c_begin, size_t c_count,
                 size_t p_begin, size_t tile, float* col);

// The adjoint of im2col_tile: adds col[r * tile + j] into image `dx_image` (fp32, packed
// N[C][D][H][W] strides of the problem's x) for rows of channels [c_begin, c_begin + c_count).
// Different channels touch disjoint memory, so callers may split channels across threads.
void col2im_add_tile(const ConvProblem& p, const float* col, size_t c_begin, size_t c_count,
                     size_t p_begin, size_t tile, float* dx_image);

}  // namespace anydnn::cpu
