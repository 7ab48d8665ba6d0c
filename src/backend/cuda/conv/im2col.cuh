// Column-matrix kernels of the CUDA GEMM solvers, one image at a time: im2col expands an image
// into the [C * taps] x [output pixels] matrix whose product with the weights is the
// convolution; col2im is its adjoint, written as a gather (one thread per input element summing
// the entries that read it), so backward data needs no atomics and is deterministic.
#pragma once

#include <cuda_runtime.h>
#include <miopen/miopen.h>

#include "backend/cuda/conv/conv_geom.cuh"

namespace anydnn::cuda {

// col[(c * taps + tap) * pixels + pixel] = x_image at that tap of that output pixel (0 in the
// padding), for every channel of one image; col has x's type.
void im2col(const ConvGeom& g, miopenDataType_t type, const void* x_image, void* col,
            cudaStream_t stream);

// The adjoint of im2col, gathering: each dx_image element (x's type) is set to the fp32 sum of
// the col entries that read it. Writes every element of the image; no atomics.
void col2im(const ConvGeom& g, miopenDataType_t type, const float* col, void* dx_image,
            cudaStream_t stream);

}  // namespace anydnn::cuda
