/* Softmax (MIOpen's signatures and enums). Included by miopen.h inside its extern "C" block. */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_SOFTMAX_H_
#define MIOPEN_GUARD_MIOPEN_SOFTMAX_H_

MIOPEN_DECLARE_OBJECT(miopenSoftmaxDescriptor);

typedef enum {
  MIOPEN_SOFTMAX_FAST = 0,     /* exp(x) / sum exp(x), no max subtraction */
  MIOPEN_SOFTMAX_ACCURATE = 1, /* the maximum subtracted first */
  MIOPEN_SOFTMAX_LOG = 2,      /* log softmax */
} miopenSoftmaxAlgorithm_t;

typedef enum {
  MIOPEN_SOFTMAX_MODE_INSTANCE = 0, /* per image (N) across C, H, W */
  MIOPEN_SOFTMAX_MODE_CHANNEL = 1,  /* per pixel (N, H, W) across C */
} miopenSoftmaxMode_t;

/* The legacy calls run ACCURATE in CHANNEL mode. */
MIOPEN_EXPORT miopenStatus_t miopenSoftmaxForward(miopenHandle_t handle, const void* alpha,
                                                  const miopenTensorDescriptor_t xDesc,
                                                  const void* x, const void* beta,
                                                  const miopenTensorDescriptor_t yDesc, void* y);
MIOPEN_EXPORT miopenStatus_t miopenSoftmaxBackward(miopenHandle_t handle, const void* alpha,
                                                   const miopenTensorDescriptor_t yDesc,
                                                   const void* y,
                                                   const miopenTensorDescriptor_t dyDesc,
                                                   const void* dy, const void* beta,
                                                   const miopenTensorDescriptor_t dxDesc, void* dx);
MIOPEN_EXPORT miopenStatus_t miopenSoftmaxForward_V2(miopenHandle_t handle, const void* alpha,
                                                     const miopenTensorDescriptor_t xDesc,
                                                     const void* x, const void* beta,
                                                     const miopenTensorDescriptor_t yDesc, void* y,
                                                     miopenSoftmaxAlgorithm_t algorithm,
                                                     miopenSoftmaxMode_t mode);
MIOPEN_EXPORT miopenStatus_t miopenSoftmaxBackward_V2(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t yDesc, const void* y,
    const miopenTensorDescriptor_t dyDesc, const void* dy, const void* beta,
    const miopenTensorDescriptor_t dxDesc, void* dx, miopenSoftmaxAlgorithm_t algorithm,
    miopenSoftmaxMode_t mode);

/* The descriptor of MIOpen's Find 2.0 problem API (miopenCreateSoftmaxProblem, beta, in
 * miopen_find2.h). MIOpen has no destroy call for it. */
MIOPEN_EXPORT miopenStatus_t miopenCreateSoftmaxDescriptor(miopenSoftmaxDescriptor_t* softmaxDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetSoftmaxDescriptor(miopenSoftmaxDescriptor_t softmaxDesc,
                                                        float alpha, float beta,
                                                        miopenSoftmaxAlgorithm_t algorithm,
                                                        miopenSoftmaxMode_t mode);
MIOPEN_EXPORT miopenStatus_t miopenGetSoftmaxDescriptor(const miopenSoftmaxDescriptor_t softmaxDesc,
                                                        float* alpha, float* beta,
                                                        miopenSoftmaxAlgorithm_t* algorithm,
                                                        miopenSoftmaxMode_t* mode);

#endif /* MIOPEN_GUARD_MIOPEN_SOFTMAX_H_ */
