// C API: the RNN functions still to come: the sequence-tensor API (miopenRNNForward,
// miopenRNNBackwardSeqData, miopenRNNBackwardWeightsSeqTensor and its descriptors). They return
// miopenStatusNotImplemented and log why; the descriptor, weight-layout and forward functions are
// in rnn_api.cpp.
#include <miopen/miopen.h>

#include "api/not_implemented.hpp"

extern "C" miopenStatus_t miopenSetRNNDataSeqTensorDescriptor(miopenSeqTensorDescriptor_t,
                                                              miopenDataType_t,
                                                              miopenRNNBaseLayout_t, int, int, int,
                                                              const int*, void*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn] (the sequence-tensor API)");
}

extern "C" miopenStatus_t miopenGetRNNDataSeqTensorDescriptor(miopenSeqTensorDescriptor_t,
                                                              miopenDataType_t*,
                                                              miopenRNNBaseLayout_t*, int*, int*,
                                                              int*, int, int*, void*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn] (the sequence-tensor API)");
}

extern "C" miopenStatus_t miopenGetRNNTempSpaceSizes(miopenHandle_t handle, miopenRNNDescriptor_t,
                                                     miopenSeqTensorDescriptor_t,
                                                     miopenRNNFWDMode_t, size_t*, size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn] (the sequence-tensor API)");
}

extern "C" miopenStatus_t miopenRNNForward(miopenHandle_t handle, const miopenRNNDescriptor_t,
                                           miopenRNNFWDMode_t, const miopenSeqTensorDescriptor_t,
                                           const void*, const miopenTensorDescriptor_t, const void*,
                                           void*, const miopenTensorDescriptor_t, const void*,
                                           void*, const miopenSeqTensorDescriptor_t, void*,
                                           const void*, size_t, void*, size_t, void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn] (the sequence-tensor API)");
}

extern "C" miopenStatus_t miopenRNNBackwardSeqData(
    miopenHandle_t handle, const miopenRNNDescriptor_t, const miopenSeqTensorDescriptor_t,
    const void*, const void*, const miopenTensorDescriptor_t, const void*, const void*, void*,
    const miopenTensorDescriptor_t, const void*, const void*, void*,
    const miopenSeqTensorDescriptor_t, void*, const void*, size_t, void*, size_t, void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn] (the sequence-tensor API)");
}

extern "C" miopenStatus_t miopenRNNBackwardWeightsSeqTensor(
    miopenHandle_t handle, const miopenRNNDescriptor_t, const miopenSeqTensorDescriptor_t,
    const void*, const miopenTensorDescriptor_t, const void*, const miopenSeqTensorDescriptor_t,
    const void*, void*, size_t, void*, size_t, const void*, size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn] (the sequence-tensor API)");
}
