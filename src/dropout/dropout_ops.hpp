// Backend-agnostic dropout front-end (MIOpen's miopenDropoutForward / Backward): validates the
// call, reads and advances the generator state in the descriptor's states buffer, decides the
// element order, and runs the backend's DropoutKernels, timed for miopenGetKernelTime.
#pragma once

#include <cstddef>

#include "core/dropout_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "handle/handle.hpp"

namespace anydnn {

// forward: in = x, out = y, a new mask into `reserve` unless the descriptor's use_mask asks for
// the one already there; backward: in = dy, out = dx through the reserve's mask. `noise` (the
// noise_shape descriptor) may be null.
void dropout_run(Handle& h, const DropoutDescriptor& d, const TensorDescriptor* noise,
                 const TensorDescriptor& in_desc, const void* in, const TensorDescriptor& out_desc,
                 void* out, void* reserve, size_t reserve_bytes, bool forward);

}  // namespace anydnn
