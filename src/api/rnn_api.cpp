// C API: RNN. Not implemented until the [rnn] issue lands; every function returns
// miopenStatusNotImplemented and logs why.
#include <miopen/miopen.h>

#include "api/not_implemented.hpp"

extern "C" miopenStatus_t miopenCreateRNNDescriptor(miopenRNNDescriptor_t*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNDescriptor(miopenRNNDescriptor_t, miopenRNNMode_t*,
                                                 miopenRNNAlgo_t*, miopenRNNInputMode_t*,
                                                 miopenRNNDirectionMode_t*, miopenRNNBiasMode_t*,
                                                 int*, int*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNDescriptor_V2(miopenRNNDescriptor_t, int*, int*,
                                                    miopenDropoutDescriptor_t*,
                                                    miopenRNNInputMode_t*,
                                                    miopenRNNDirectionMode_t*, miopenRNNMode_t*,
                                                    miopenRNNBiasMode_t*, miopenRNNAlgo_t*,
                                                    miopenDataType_t*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenDestroyRNNDescriptor(miopenRNNDescriptor_t) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenSetRNNDescriptor(miopenRNNDescriptor_t, const int, const int,
                                                 miopenRNNInputMode_t, miopenRNNDirectionMode_t,
                                                 miopenRNNMode_t, miopenRNNBiasMode_t,
                                                 miopenRNNAlgo_t, miopenDataType_t) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenSetRNNDescriptor_V2(miopenRNNDescriptor_t, const int, const int,
                                                    miopenDropoutDescriptor_t, miopenRNNInputMode_t,
                                                    miopenRNNDirectionMode_t, miopenRNNMode_t,
                                                    miopenRNNBiasMode_t, miopenRNNAlgo_t,
                                                    miopenDataType_t) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenSetRNNDataSeqTensorDescriptor(miopenSeqTensorDescriptor_t,
                                                              miopenDataType_t,
                                                              miopenRNNBaseLayout_t, int, int, int,
                                                              const int*, void*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNDataSeqTensorDescriptor(miopenSeqTensorDescriptor_t,
                                                              miopenDataType_t*,
                                                              miopenRNNBaseLayout_t*, int*, int*,
                                                              int*, int, int*, void*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNWorkspaceSize(miopenHandle_t handle,
                                                    const miopenRNNDescriptor_t, const int,
                                                    const miopenTensorDescriptor_t*, size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNTrainingReserveSize(miopenHandle_t handle,
                                                          miopenRNNDescriptor_t, const int,
                                                          const miopenTensorDescriptor_t*,
                                                          size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNTempSpaceSizes(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                     miopenSeqTensorDescriptor_t,
                                                     miopenRNNFWDMode_t, size_t*, size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNParamsSize(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                 miopenTensorDescriptor_t, size_t*,
                                                 miopenDataType_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNParamsDescriptor(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                       miopenTensorDescriptor_t,
                                                       miopenTensorDescriptor_t, miopenDataType_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNInputTensorSize(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                      const int, miopenTensorDescriptor_t*,
                                                      size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNHiddenTensorSize(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                       const int, miopenTensorDescriptor_t*,
                                                       size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNLayerParamSize(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                     const int, miopenTensorDescriptor_t, const int,
                                                     size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNLayerBiasSize(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                    const int, const int, size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNLayerParam(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                 const int, miopenTensorDescriptor_t,
                                                 miopenTensorDescriptor_t, const void*, const int,
                                                 miopenTensorDescriptor_t, void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNLayerBias(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                const int, miopenTensorDescriptor_t,
                                                miopenTensorDescriptor_t, const void*, const int,
                                                miopenTensorDescriptor_t, void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNLayerParamOffset(miopenRNNDescriptor_t, const int,
                                                       miopenTensorDescriptor_t, const int,
                                                       miopenTensorDescriptor_t, size_t*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNLayerBiasOffset(miopenRNNDescriptor_t, const int,
                                                      miopenTensorDescriptor_t, const int,
                                                      miopenTensorDescriptor_t, size_t*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenSetRNNLayerParam(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                 const int, miopenTensorDescriptor_t,
                                                 miopenTensorDescriptor_t, void*, const int,
                                                 miopenTensorDescriptor_t, const void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenSetRNNLayerBias(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                const int, miopenTensorDescriptor_t,
                                                miopenTensorDescriptor_t, void*, const int,
                                                miopenTensorDescriptor_t, const void*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenSetRNNPaddingMode(miopenRNNDescriptor_t, miopenRNNPaddingMode_t) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenGetRNNPaddingMode(miopenRNNDescriptor_t, miopenRNNPaddingMode_t*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenRNNForward(miopenHandle_t handle, const miopenRNNDescriptor_t,
                                           miopenRNNFWDMode_t, const miopenSeqTensorDescriptor_t,
                                           const void*, const miopenTensorDescriptor_t, const void*,
                                           void*, const miopenTensorDescriptor_t, const void*,
                                           void*, const miopenSeqTensorDescriptor_t, void*,
                                           const void*, size_t, void*, size_t, void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenRNNBackwardSeqData(
    miopenHandle_t handle, const miopenRNNDescriptor_t, const miopenSeqTensorDescriptor_t,
    const void*, const void*, const miopenTensorDescriptor_t, const void*, const void*, void*,
    const miopenTensorDescriptor_t, const void*, const void*, void*,
    const miopenSeqTensorDescriptor_t, void*, const void*, size_t, void*, size_t, void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenRNNBackwardWeightsSeqTensor(
    miopenHandle_t handle, const miopenRNNDescriptor_t, const miopenSeqTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenSeqTensorDescriptor_t,
    const void*, void*, size_t, void*, size_t, const void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenRNNForwardTraining(
    miopenHandle_t handle, const miopenRNNDescriptor_t, const int, const miopenTensorDescriptor_t*,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t*,
    void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t, void*, void*,
    size_t, void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenRNNBackwardData(
    miopenHandle_t handle, const miopenRNNDescriptor_t, const int, const miopenTensorDescriptor_t*,
    const void*, const miopenTensorDescriptor_t*, const void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t*, void*, const miopenTensorDescriptor_t, void*,
    const miopenTensorDescriptor_t, void*, void*, size_t, void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenRNNBackwardWeights(
    miopenHandle_t handle, const miopenRNNDescriptor_t, const int, const miopenTensorDescriptor_t*,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t*,
    const void*, const miopenTensorDescriptor_t, void*, void*, size_t, const void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenRNNForwardInference(
    miopenHandle_t handle, miopenRNNDescriptor_t, const int, const miopenTensorDescriptor_t*,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenTensorDescriptor_t*,
    void*, const miopenTensorDescriptor_t, void*, const miopenTensorDescriptor_t, void*, void*,
    size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}
