// Dropout on the CPU: y = x / (1 - p) where the mask keeps an element, 0 elsewhere. Mask element
// i (logical order) comes from DropoutDescriptor::keep, or from the reserve when use_mask.
#pragma once

#include <cstdint>

#include "core/tensor_descriptor.hpp"

namespace anydnn::cpu {

// forward: generate (or read) the mask into `mask` and apply it to x -> y; backward: apply the
// mask in `mask` to dy -> dx.
void dropout_apply(const TensorDescriptor& in_desc, const void* in,
                   const TensorDescriptor& out_desc, void* out, uint8_t* mask, bool generate,
                   uint64_t seed, uint64_t counter, float dropout, int threads);

}  // namespace anydnn::cpu
