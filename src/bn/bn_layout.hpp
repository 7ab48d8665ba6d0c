// Layout predicates of batch-norm tensors that decide which solver takes a problem. They only
// read a descriptor's lengths and strides, so every backend's solvers share them
// (bn/bn_solver_specs.cpp for applicability; backend kernels for their memory walks).
#pragma once

#include <cstddef>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// Packed image, positions in (c, d, h, w) order (NCHW / NCDHW images; the image stride is free).
bool image_packed(const TensorDescriptor& t);

// Packed image, positions in (d, h, w, c) order (NHWC / NDHWC images).
bool image_channel_last(const TensorDescriptor& t);

// The spatial dimensions of each plane are packed (N and C strides free).
bool spatial_contiguous(const TensorDescriptor& t);

// Pixel stride when the spatial dimensions are packed around contiguous channels; 0 if not.
size_t pixel_stride(const TensorDescriptor& t);

}  // namespace anydnn
