// The convolution kernels that are not a choice among solvers: the bias calls and the alpha/beta
// blend of a result. One implementation per backend (backend/cpu/conv_bias.cpp,
// backend/cuda/conv_bias.cu), reached through Backend::primitives() like the solver registries,
// so the front-end (conv/conv_ops.cpp, conv/conv_bias.cpp) never names a backend and the
// Backend interface gains no method per kernel.
#pragma once

#include "core/tensor_descriptor.hpp"

namespace anydnn {

class ConvKernels {
 public:
  virtual ~ConvKernels() = default;
  // Descriptors already validated by conv/conv_bias.cpp.
  //   forward:  y = alpha * (y + b[k]) + beta * y   (MIOpen's OpTensor-based definition)
  //   backward: db[k] = alpha * sum over n and spatial of dy[n, k, ...] + beta * db[k]
  virtual void bias_forward(const TensorDescriptor& b_desc, const void* b,
                            const TensorDescriptor& y_desc, void* y, float alpha,
                            float beta) const = 0;
  virtual void bias_backward(const TensorDescriptor& dy_desc, const void* dy,
                             const TensorDescriptor& db_desc, void* db, float alpha,
                             float beta) const = 0;
  // dst = alpha * src + beta * dst over the logical elements of `desc` (both tensors laid out by
  // it); beta = 0 ignores dst's old contents, NaN included. Blends a solver's result computed
  // into scratch memory into the caller's tensor.
  virtual void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha,
                           float beta) const = 0;
};

}  // namespace anydnn
