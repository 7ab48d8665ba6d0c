// Elementwise tensor kernels of the CPU backend.
#pragma once

#include "core/tensor_descriptor.hpp"

namespace anydnn::cpu {

// dst = alpha * src + beta * dst over the logical elements of `desc` (any rank and strides).
void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha, float beta,
                 int threads);

}  // namespace anydnn::cpu
