// CUDA kernels for the convolution bias calls (see Backend::conv_bias_forward/backward).
#pragma once

#include <cuda_runtime.h>

#include "core/tensor_descriptor.hpp"

namespace anydnn::cuda {

void conv_bias_forward(const TensorDescriptor& b_desc, const void* b,
                       const TensorDescriptor& y_desc, void* y, float alpha, float beta,
                       cudaStream_t stream);
void conv_bias_backward(const TensorDescriptor& dy_desc, const void* dy,
                        const TensorDescriptor& db_desc, void* db, float alpha, float beta,
                        cudaStream_t stream);

}  // namespace anydnn::cuda
