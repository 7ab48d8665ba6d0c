// Dropout on CUDA (the semantics of backend/cpu/dropout.hpp: the same mask bits for the same
// seed and counter, so CPU and GPU runs agree).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/tensor_descriptor.hpp"

namespace anydnn::cuda {

void dropout_apply(const TensorDescriptor& in_desc, const void* in,
                   const TensorDescriptor& out_desc, void* out, uint8_t* mask, bool generate,
                   uint64_t seed, uint64_t counter, float dropout, cudaStream_t stream);

}  // namespace anydnn::cuda
