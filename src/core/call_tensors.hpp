// What the elementwise-style families (activation, pooling, LRN, softmax) share about a call's
// tensors: the descriptors by role, and a 4-D tensor's strides in the plain form kernels take by
// value.
#pragma once

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// The descriptors of one call by role: forward reads x and writes y; backward reads y and dy
// (and x where the family needs it) and writes dx. Unused roles stay null.
struct CallDescriptors {
  const TensorDescriptor* x = nullptr;
  const TensorDescriptor* y = nullptr;
  const TensorDescriptor* dx = nullptr;
  const TensorDescriptor* dy = nullptr;
};

// Strides of one 4-D tensor as (n, c, h, w).
struct NchwStrides {
  long long n = 0, c = 0, h = 0, w = 0;
};

inline NchwStrides nchw_strides(const TensorDescriptor& d) {
  const auto& s = d.strides();
  return {static_cast<long long>(s[0]), static_cast<long long>(s[1]), static_cast<long long>(s[2]),
          static_cast<long long>(s[3])};
}

}  // namespace anydnn
