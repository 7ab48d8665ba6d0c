/* Pooling: MIOpen's pooling descriptor, its enums and the forward / backward calls, with MIOpen's
 * signatures. Included by miopen.h inside its extern "C" block. */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_POOLING_H_
#define MIOPEN_GUARD_MIOPEN_POOLING_H_

MIOPEN_DECLARE_OBJECT(miopenPoolingDescriptor);

typedef enum {
  miopenIndexUint8 = 0,
  miopenIndexUint16 = 1,
  miopenIndexUint32 = 2,
  miopenIndexUint64 = 3,
} miopenIndexType_t;

typedef enum {
  miopenPoolingMax = 0,
  miopenPoolingAverage = 1,          /* exclusive of padding */
  miopenPoolingAverageInclusive = 2, /* divides by the whole window */
} miopenPoolingMode_t;

typedef enum {
  miopenPoolingWorkspaceIndexMask = 0,  /* position inside the window */
  miopenPoolingWorkspaceIndexImage = 1, /* position inside the input image (d*H*W + h*W + w) */
} miopenPoolingWorkspaceIndexMode_t;

MIOPEN_EXPORT miopenStatus_t miopenCreatePoolingDescriptor(miopenPoolingDescriptor_t* poolDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetPoolingIndexType(miopenPoolingDescriptor_t poolDesc,
                                                       miopenIndexType_t index_type);
MIOPEN_EXPORT miopenStatus_t miopenGetPoolingIndexType(miopenPoolingDescriptor_t poolDesc,
                                                       miopenIndexType_t* index_type);
MIOPEN_EXPORT miopenStatus_t miopenSetPoolingWorkSpaceIndexMode(
    miopenPoolingDescriptor_t poolDesc, miopenPoolingWorkspaceIndexMode_t workspace_index);
MIOPEN_EXPORT miopenStatus_t miopenGetPoolingWorkSpaceIndexMode(
    miopenPoolingDescriptor_t poolDesc, miopenPoolingWorkspaceIndexMode_t* workspace_index);
MIOPEN_EXPORT miopenStatus_t miopenSet2dPoolingDescriptor(miopenPoolingDescriptor_t poolDesc,
                                                          miopenPoolingMode_t mode,
                                                          int windowHeight, int windowWidth,
                                                          int pad_h, int pad_w, int stride_h,
                                                          int stride_w);
MIOPEN_EXPORT miopenStatus_t miopenGet2dPoolingDescriptor(const miopenPoolingDescriptor_t poolDesc,
                                                          miopenPoolingMode_t* mode,
                                                          int* windowHeight, int* windowWidth,
                                                          int* pad_h, int* pad_w, int* stride_h,
                                                          int* stride_w);
MIOPEN_EXPORT miopenStatus_t miopenGetPoolingForwardOutputDim(
    const miopenPoolingDescriptor_t poolDesc, const miopenTensorDescriptor_t tensorDesc, int* n,
    int* c, int* h, int* w);
MIOPEN_EXPORT miopenStatus_t miopenSetNdPoolingDescriptor(miopenPoolingDescriptor_t poolDesc,
                                                          const miopenPoolingMode_t mode,
                                                          int nbDims, const int* windowDimA,
                                                          const int* padA, const int* stridesA);
MIOPEN_EXPORT miopenStatus_t miopenGetNdPoolingDescriptor(const miopenPoolingDescriptor_t poolDesc,
                                                          int nbDimsRequested,
                                                          miopenPoolingMode_t* mode, int* nbDims,
                                                          int* windowDimA, int* padA,
                                                          int* stridesA);
MIOPEN_EXPORT miopenStatus_t miopenGetPoolingNdForwardOutputDim(
    const miopenPoolingDescriptor_t poolDesc, const miopenTensorDescriptor_t tensorDesc, int dims,
    int* tensorDimArr);
MIOPEN_EXPORT miopenStatus_t miopenPoolingGetWorkSpaceSize(const miopenTensorDescriptor_t yDesc,
                                                           size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t
miopenPoolingGetWorkSpaceSizeV2(const miopenPoolingDescriptor_t poolDesc,
                                const miopenTensorDescriptor_t yDesc, size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t
miopenPoolingForward(miopenHandle_t handle, const miopenPoolingDescriptor_t poolDesc,
                     const void* alpha, const miopenTensorDescriptor_t xDesc, const void* x,
                     const void* beta, const miopenTensorDescriptor_t yDesc, void* y,
                     bool do_backward, void* workSpace, size_t workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenPoolingBackward(
    miopenHandle_t handle, const miopenPoolingDescriptor_t poolDesc, const void* alpha,
    const miopenTensorDescriptor_t yDesc, const void* y, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t xDesc, const void* x, const void* beta,
    const miopenTensorDescriptor_t dxDesc, void* dx, void* workSpace);
MIOPEN_EXPORT miopenStatus_t miopenDestroyPoolingDescriptor(miopenPoolingDescriptor_t poolDesc);

#endif /* MIOPEN_GUARD_MIOPEN_POOLING_H_ */
