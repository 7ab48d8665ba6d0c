// The device side of the epilogue contract (activation/fused_epilogue.hpp) for the CUDA kernels:
// the convolution epilogue (per-channel scale / shift, residual, activation) and the activation
// a BN pass applies, as small device functions a kernel calls on a value it is about to store.
//
// The activation is chosen at run time (a switch on the mode, uniform across the grid) rather
// than by instantiating every kernel per mode: a fused kernel is a GEMM tile or a memory-bound
// pass, where one predictable branch per value is free, while ten instantiations of a CUTLASS
// kernel would cost minutes of build time each. Every case is activ::forward / activ::backward
// of activation/activation_math.hpp, so the formulas are MIOpen's, written once.
#pragma once

#include <cuda_runtime.h>
#include <miopen/miopen.h>

#include "activation/activation_math.hpp"
#include "activation/fused_epilogue.hpp"

namespace anydnn::cuda {

// y = activation(x) for a mode known at run time.
__host__ __device__ inline float activate(miopenActivationMode_t mode, float x,
                                          const activ::ActivParams& p) {
  switch (mode) {
    case miopenActivationRELU:
      return activ::forward<miopenActivationRELU>(x, p);
    case miopenActivationLOGISTIC:
      return activ::forward<miopenActivationLOGISTIC>(x, p);
    case miopenActivationTANH:
      return activ::forward<miopenActivationTANH>(x, p);
    case miopenActivationSOFTRELU:
      return activ::forward<miopenActivationSOFTRELU>(x, p);
    case miopenActivationABS:
      return activ::forward<miopenActivationABS>(x, p);
    case miopenActivationPOWER:
      return activ::forward<miopenActivationPOWER>(x, p);
    case miopenActivationCLIPPEDRELU:
      return activ::forward<miopenActivationCLIPPEDRELU>(x, p);
    case miopenActivationLEAKYRELU:
      return activ::forward<miopenActivationLEAKYRELU>(x, p);
    case miopenActivationELU:
      return activ::forward<miopenActivationELU>(x, p);
    case miopenActivationPASTHRU:
    default:
      return x;
  }
}

// dx from dy, the activation's input x and its output y, for a mode known at run time.
__host__ __device__ inline float activate_backward(miopenActivationMode_t mode, float dy, float x,
                                                   float y, const activ::ActivParams& p) {
  switch (mode) {
    case miopenActivationRELU:
      return activ::backward<miopenActivationRELU>(dy, x, y, p);
    case miopenActivationLOGISTIC:
      return activ::backward<miopenActivationLOGISTIC>(dy, x, y, p);
    case miopenActivationTANH:
      return activ::backward<miopenActivationTANH>(dy, x, y, p);
    case miopenActivationSOFTRELU:
      return activ::backward<miopenActivationSOFTRELU>(dy, x, y, p);
    case miopenActivationABS:
      return activ::backward<miopenActivationABS>(dy, x, y, p);
    case miopenActivationPOWER:
      return activ::backward<miopenActivationPOWER>(dy, x, y, p);
    case miopenActivationCLIPPEDRELU:
      return activ::backward<miopenActivationCLIPPEDRELU>(dy, x, y, p);
    case miopenActivationLEAKYRELU:
      return activ::backward<miopenActivationLEAKYRELU>(dy, x, y, p);
    case miopenActivationELU:
      return activ::backward<miopenActivationELU>(dy, x, y, p);
    case miopenActivationPASTHRU:
    default:
      return dy;
  }
}

// A ConvEpilogue by value, for kernel arguments (the contract's struct holds a nested
// FusedActivation; this is the same, flat). Null scale: 1, null shift: 0, null residual: none.
struct EpilogueArgs {
  const float* scale = nullptr;
  const float* shift = nullptr;
  const void* residual = nullptr;  // laid out like y, y's type
  float residual_alpha = 1.0f;
  miopenActivationMode_t mode = miopenActivationPASTHRU;
  activ::ActivParams params;
};

inline EpilogueArgs epilogue_args(const ConvEpilogue& e) {
  EpilogueArgs a;
  a.scale = e.scale;
  a.shift = e.shift;
  a.residual = e.residual;
  a.residual_alpha = e.residual_alpha;
  a.mode = e.activation.mode;
  a.params = e.activation.params;
  return a;
}

// The contract's arithmetic on one fp32 value v of output channel k:
//   v = v * scale[k]; v = v + residual_alpha * z; v = v + shift[k]; y = activation(v)
// z is the residual's element at the output's offset (ignored without a residual). With only a
// shift this is conv + bias, the unfused bias call's bits.
__device__ inline float apply_epilogue(const EpilogueArgs& e, float v, long long k, float z) {
  if (e.scale) v *= __ldg(e.scale + k);
  if (e.residual) v += e.residual_alpha * z;
  if (e.shift) v += __ldg(e.shift + k);
  return activate(e.mode, v, e.params);
}

}  // namespace anydnn::cuda
