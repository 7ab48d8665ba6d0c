// C API: dropout. Not implemented until the [rnn] issue lands; every function returns
// miopenStatusNotImplemented and logs why.
#include <miopen/miopen.h>

#include "api/not_implemented.hpp"

extern "C" miopenStatus_t miopenCreateDropoutDescriptor(miopenDropoutDescriptor_t*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenDestroyDropoutDescriptor(miopenDropoutDescriptor_t) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenDropoutGetReserveSpaceSize(const miopenTensorDescriptor_t,
                                                           size_t*) {
  ANYDNN_NOT_IMPLEMENTED(nullptr, "[rnn]");
}

extern "C" miopenStatus_t miopenDropoutGetStatesSize(miopenHandle_t handle, size_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenGetDropoutDescriptor(miopenDropoutDescriptor_t,
                                                     miopenHandle_t handle, float*, void**,
                                                     unsigned long long*, bool*, bool*,
                                                     miopenRNGType_t*) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenRestoreDropoutDescriptor(miopenDropoutDescriptor_t,
                                                         miopenHandle_t handle, float, void*,
                                                         size_t, unsigned long long, bool, bool,
                                                         miopenRNGType_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenSetDropoutDescriptor(miopenDropoutDescriptor_t,
                                                     miopenHandle_t handle, float, void*, size_t,
                                                     unsigned long long, bool, bool,
                                                     miopenRNGType_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenDropoutForward(miopenHandle_t handle,
                                               const miopenDropoutDescriptor_t,
                                               const miopenTensorDescriptor_t,
                                               const miopenTensorDescriptor_t, const void*,
                                               const miopenTensorDescriptor_t, void*, void*,
                                               size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}

extern "C" miopenStatus_t miopenDropoutBackward(miopenHandle_t handle,
                                                const miopenDropoutDescriptor_t,
                                                const miopenTensorDescriptor_t,
                                                const miopenTensorDescriptor_t, const void*,
                                                const miopenTensorDescriptor_t, void*, void*,
                                                size_t) {
  ANYDNN_NOT_IMPLEMENTED(handle, "[rnn]");
}
