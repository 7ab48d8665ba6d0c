// The dropout descriptor's generator state, which lives in the caller's states buffer (device
// memory on CUDA, as in MIOpen; host memory for the driver): setting the descriptor from the API,
// reading the state before a call that draws a mask and advancing its counter after one. They
// need the backend's copies, so they sit here above backend/, not in core/dropout_descriptor.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>

#include "backend/backend.hpp"
#include "core/dropout_descriptor.hpp"

namespace anydnn {

// Validates and stores; `initialise` writes a fresh state {seed, 0} into the buffer (Set),
// otherwise the buffer must already hold one (Restore). BadParm with a reason otherwise.
void set_dropout_descriptor(DropoutDescriptor& d, float p, void* st, size_t bytes,
                            unsigned long long s, bool mask, bool evo, miopenRNGType_t r,
                            bool initialise, Backend& backend);
// The generator state in the states buffer.
DropoutState read_dropout_state(const DropoutDescriptor& d, Backend& backend);
// Writes `current`'s counter plus one back into the buffer (state evolution).
void advance_dropout_counter(const DropoutDescriptor& d, Backend& backend,
                             const DropoutState& current);

}  // namespace anydnn
