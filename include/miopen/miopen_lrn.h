/* Local response normalization (MIOpen's signatures and enums). Included by miopen.h inside its
 * extern "C" block. As MIOpen's: 4-D NCHW tensors, float and half data (bfloat16 is
 * NotImplemented), alpha / beta of the compute calls are not used (the output is overwritten),
 * and the workspace of a forward call with do_backward holds the scale backward reads. */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_LRN_H_
#define MIOPEN_GUARD_MIOPEN_LRN_H_

MIOPEN_DECLARE_OBJECT(miopenLRNDescriptor);

typedef enum {
  miopenLRNWithinChannel = 0, /* Channel independent: an lrnN x lrnN window of each map */
  miopenLRNCrossChannel = 1,  /* Cross channel: lrnN neighbouring channels of each pixel */
} miopenLRNMode_t;

MIOPEN_EXPORT miopenStatus_t miopenCreateLRNDescriptor(miopenLRNDescriptor_t* lrnDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetLRNDescriptor(const miopenLRNDescriptor_t lrnDesc,
                                                    miopenLRNMode_t mode, unsigned int lrnN,
                                                    double lrnAlpha, double lrnBeta, double lrnK);
MIOPEN_EXPORT miopenStatus_t miopenGetLRNDescriptor(const miopenLRNDescriptor_t lrnDesc,
                                                    miopenLRNMode_t* mode, unsigned int* lrnN,
                                                    double* lrnAlpha, double* lrnBeta,
                                                    double* lrnK);
/* n * (n stride) * sizeof(float) of yDesc, whatever its data type (MIOpen's rule). */
MIOPEN_EXPORT miopenStatus_t miopenLRNGetWorkSpaceSize(const miopenTensorDescriptor_t yDesc,
                                                       size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t
miopenLRNForward(miopenHandle_t handle, const miopenLRNDescriptor_t lrnDesc, const void* alpha,
                 const miopenTensorDescriptor_t xDesc, const void* x, const void* beta,
                 const miopenTensorDescriptor_t yDesc, void* y, bool do_backward, void* workSpace);
MIOPEN_EXPORT miopenStatus_t miopenLRNBackward(
    miopenHandle_t handle, const miopenLRNDescriptor_t lrnDesc, const void* alpha,
    const miopenTensorDescriptor_t yDesc, const void* y, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t xDesc, const void* x, const void* beta,
    const miopenTensorDescriptor_t dxDesc, void* dx, const void* workSpace);
MIOPEN_EXPORT miopenStatus_t miopenDestroyLRNDescriptor(miopenLRNDescriptor_t lrnDesc);

#endif /* MIOPEN_GUARD_MIOPEN_LRN_H_ */
