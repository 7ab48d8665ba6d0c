// The convolution kernels that are not a choice among solvers: the bias calls and the alpha/beta
// blend of a result. One implementation per backend (backend/cpu/conv_bias.cpp,
// backend/cuda/conv_bias.cu), reached through Backend::primitives() like the solver registries,
// so the front-end (conv/conv_ops.cpp, conv/conv_bias.cpp) never names a backend and the
// Backend interface gains no method per kernel.
#pragma once

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// The per-channel steps of a fused convolution chain, folded into the fp32 scale / shift of a
// ConvEpilogue (activation/fused_epilogue.hpp), for K = channels output channels:
//   spatial BN inference:  scale[k] = alpha * g[k] / sqrt(var[k] + epsilon)
//                          shift[k] = (bias[k] - mean[k]) * g[k] / sqrt(var[k] + eps) + beta[k]
//   no BN:                 scale[k] = alpha (only written when alpha != 1), shift[k] = bias[k]
// with bias 0 when absent; computed in double, rounded once. Parameter tensors are 1 x K x 1..
// of any float type and strides (their descriptors say). All pointers are the backend's memory.
struct EpilogueFold {
  size_t channels = 0;
  float alpha = 1.0f;                           // miopenConvolutionBiasActivationForward's alpha1
  const TensorDescriptor* bias_desc = nullptr;  // null: no bias
  const void* bias = nullptr;
  const TensorDescriptor* bn_desc = nullptr;  // null: no BN; else scale, shift, mean, variance
  const void* bn_scale = nullptr;
  const void* bn_shift = nullptr;
  const void* bn_mean = nullptr;
  const void* bn_var = nullptr;
  double epsilon = 0.0;
};

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
  // Folds a fused chain's bias / BN into `scale` and `shift` (K floats each, backend memory;
  // scale is left alone when the fold has neither BN nor alpha != 1). Returns false when the
  // backend has no kernel for it: the fusion front-end then folds on the host through
  // Backend::copy (fusion/epilogue_fold.cpp), which on a GPU costs a synchronisation per call,
  // so a device backend should override this with a small kernel.
  virtual bool fold_epilogue(const EpilogueFold& /*fold*/, float* /*scale*/,
                             float* /*shift*/) const {
    return false;
  }
};

}  // namespace anydnn
