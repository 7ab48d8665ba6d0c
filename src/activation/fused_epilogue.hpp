// The epilogue contract (with the activation family: what it applies is an activation after a
// scale, shift and residual): what a convolution or batch-normalization solver may be asked to
// apply to its output while it is still in registers or cache, so that a fused chain (fusion plans,
// miopenConvolutionBiasActivationForward) makes one pass over memory instead of three. Written
// once for every backend; a solver opts in through its family's capability query
// (ConvSolver::epilogue_support, BnSolver::activation_support) and is never handed an epilogue
// it did not accept. The fusion front-end (src/fusion/) builds the values and picks the solver.
//
// For a backend implementer (CPU: backend/cpu/conv/conv_epilogue.hpp; CUDA: a CUTLASS epilogue
// functor or the tail of a hand-written kernel):
//   - ConvEpilogue: per output channel k (over all groups, 0 <= k < K), in fp32, after the
//     whole reduction over C*R*S and before the output is narrowed to its storage type:
//         v = conv;  v = v * scale[k] (if scale);  v = v + residual_alpha * z (if residual);
//         v = v + shift[k] (if shift);  y = activation(v)
//     scale / shift are fp32 arrays of K values in the backend's memory (the front-end folds
//     bias, BN inference and alpha1 into them), z is a tensor laid out like y (same strides
//     and type). A plain bias is only a shift, so conv + bias + activation gives the bits of
//     the unfused sequence on fp32 data.
//   - FusedActivation: the mode and MIOpen's fp32 parameters; the arithmetic must be
//     activation/activation_math.hpp's activ::forward / activ::backward (ANYDNN_HD: callable
//     from device code), never a rewritten formula.
//   - BnBuffers::activation: forward (inference and training) y = activation(bn(x)) before the
//     alpha / beta blend; backward: dy is replaced, on the fly in both the reduction and the
//     dx pass, by activ::backward(dy, bn(x), activation(bn(x))) with
//     bn(x) = scale * (x - saved_mean) * saved_invstd + bias recomputed from the saved
//     statistics (MIOpen's fused BN-backward + activation-backward kernel); dscale / dbias are
//     those of the modified dy.
#pragma once

#include <miopen/miopen.h>

#include "activation/activation_math.hpp"

namespace anydnn {

// An activation applied by another primitive's kernel (conv epilogue, BN pass).
struct FusedActivation {
  miopenActivationMode_t mode = miopenActivationPASTHRU;
  // alpha, beta, gamma and MIOpen's derived values, as ActivationProblem::params() gives them
  // for the output's data type (epsilon differs between fp32 and 16-bit data).
  activ::ActivParams params;
};

// What a convolution epilogue computes, known when a plan is compiled (no pointers): the
// capability query answers for this.
struct ConvEpilogueNeeds {
  bool scale = false;     // per-channel factor (BN inference folded, alpha1)
  bool shift = false;     // per-channel addend (bias, BN inference folded)
  bool residual = false;  // + residual_alpha * z
  miopenActivationMode_t activation = miopenActivationPASTHRU;
};

// The values of one call (ConvBuffers::epilogue). Pointers are the backend's memory.
struct ConvEpilogue {
  const float* scale = nullptr;    // K values, or null: 1
  const float* shift = nullptr;    // K values, or null: 0
  const void* residual = nullptr;  // z, laid out like y, or null
  float residual_alpha = 1.0f;
  FusedActivation activation;

  ConvEpilogueNeeds needs() const {
    return {scale != nullptr, shift != nullptr, residual != nullptr, activation.mode};
  }
};

}  // namespace anydnn
