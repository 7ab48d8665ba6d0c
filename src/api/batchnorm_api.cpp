// C API: batch normalization. Not implemented until the [bn] issue lands; every function returns
// miopenStatusNotImplemented and logs why.
#include <miopen/miopen.h>

#include "api/not_implemented.hpp"

extern "C" miopenStatus_t miopenDeriveBNTensorDescriptor(miopenTensorDescriptor_t,
                                                         const miopenTensorDescriptor_t,
                                                         miopenBatchNormMode_t) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[bn]");
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardTraining(
    miopenHandle_t handle, miopenBatchNormMode_t, void*, void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t, void*,
    void*, double, void*, void*, double, void*, void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[bn]");
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardTraining_V2(
    miopenHandle_t handle, miopenBatchNormMode_t, void*, void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t,
    const miopenTensorDescriptor_t, const miopenTensorDescriptor_t, const miopenTensorDescriptor_t,
    void*, void*, double, void*, void*, double, void*, void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[bn]");
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardInference(
    miopenHandle_t handle, miopenBatchNormMode_t, void*, void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t, void*,
    void*, void*, void*, double) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[bn]");
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardInference_V2(
    miopenHandle_t handle, miopenBatchNormMode_t, void*, void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t,
    const miopenTensorDescriptor_t, const miopenTensorDescriptor_t, const miopenTensorDescriptor_t,
    void*, void*, void*, void*, double) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[bn]");
}

extern "C" miopenStatus_t miopenBatchNormalizationBackward(
    miopenHandle_t handle, miopenBatchNormMode_t, const void*, const void*, const void*,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t, const void*,
    void*, void*, double, const void*, const void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[bn]");
}

extern "C" miopenStatus_t miopenBatchNormalizationBackward_V2(
    miopenHandle_t handle, miopenBatchNormMode_t, const void*, const void*, const void*,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t,
    const miopenTensorDescriptor_t, const miopenTensorDescriptor_t, const miopenTensorDescriptor_t,
    const void*, void*, void*, double, const void*, const void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[bn]");
}
