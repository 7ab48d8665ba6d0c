// What dropout (the dropout API, dropout_ops.hpp, and the dropout between RNN layers) needs
// from a backend: one elementwise kernel. A backend hands its implementation out through
// Backend::kernels<DropoutKernels>() (backend/cpu/dropout.*, backend/cuda/dropout.*).
#pragma once

#include <cstdint>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// out = in * scale where the mask keeps an element, 0 elsewhere. Mask element i (logical
// order) comes from DropoutDescriptor::keep(seed, counter, i, dropout) when `generate` (and is
// stored), else it is read. in and out may be the same buffer.
struct DropoutApply {
  const TensorDescriptor* in_desc;
  const void* in;
  const TensorDescriptor* out_desc;
  void* out;
  uint8_t* mask;
  bool generate;
  uint64_t seed, counter;
  float dropout;
  float scale;  // 1 / (1 - dropout)
  // Both tensors packed in logical order with equal strides: element i at offset i.
  bool linear;
};

class DropoutKernels {
 public:
  virtual ~DropoutKernels() = default;
  virtual void apply(const DropoutApply& a) = 0;
};

}  // namespace anydnn
