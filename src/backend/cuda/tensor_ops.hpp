// Elementwise tensor kernels of the CUDA backend (the counterpart of cpu/tensor_ops.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/tensor_descriptor.hpp"

namespace anydnn::cuda {

// dst = alpha * src + beta * dst over the logical elements of `desc` (any rank up to 5, any
// strides); beta = 0 ignores dst's old contents, NaN included.
void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha, float beta,
                 cudaStream_t stream);
void half_to_float(const uint16_t* src, size_t n, float* dst, cudaStream_t stream);
void float_to_half(const float* src, size_t n, uint16_t* dst, cudaStream_t stream);

}  // namespace anydnn::cuda
