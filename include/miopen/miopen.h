/*
 * anydnn: MIOpen's public C API, implemented for x86 CPUs and NVIDIA GPUs.
 *
 * Every type, enumerator value and function signature below matches MIOpen's own
 * include/miopen/miopen.h, so code written for MIOpen compiles against this header and links
 * against libMIOpen unchanged. The header is C99 and C++ compatible.
 *
 * Families declared here: handle and errors, tensors, convolution (Find, immediate mode),
 * batch normalization, activation, RNN and dropout. docs/api-status.md says which functions
 * are implemented; the others return miopenStatusNotImplemented with a logged reason.
 *
 * Declarations marked "beta" need MIOPEN_BETA_API defined before inclusion, as in MIOpen.
 */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#define MIOPEN_GUARD_MIOPEN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <miopen/config.h>
#include <miopen/export.h>

/* Unlike MIOpen's, the expansion ends without ';' so that "MIOPEN_DECLARE_OBJECT(x);" is
 * valid ISO C (no empty declaration). */
#define MIOPEN_DECLARE_OBJECT(name) \
  struct name {                     \
    char anydnn_opaque_;            \
  };                                \
  typedef struct name* name##_t

/* miopenConvAlgoPerf_t has an anonymous union, as in MIOpen: standard in C11 and C++, a GNU
 * extension in C99 that __extension__ keeps quiet under -pedantic. */
#if defined(__GNUC__) || defined(__clang__)
#define MIOPEN_ANONYMOUS_UNION __extension__ union
#else
#define MIOPEN_ANONYMOUS_UNION union
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The stream type, decided by the build as MIOpen's own header decides it from miopen/config.h
 * (hipStream_t there). A library built with the CUDA backend types it as cudaStream_t, spelled
 * as CUDA itself spells it (driver_types.h: typedef struct CUstream_st* cudaStream_t), so that
 * this header needs no CUDA header and stays ISO C99: `cudaStream_t s; miopenGetStream(h, &s);`
 * compiles in C and C++, and so does hipified code on the NVIDIA platform, where hipStream_t is
 * cudaStream_t. A CPU-only build keeps an opaque pointer (NULL on the CPU backend). */
#if ANYDNN_BACKEND_CUDA
typedef struct CUstream_st* miopenAcceleratorQueue_t;
#else
typedef void* miopenAcceleratorQueue_t;
#endif

/* ---------------------------------------------------------------------------------------------
 * Handle and errors
 * ------------------------------------------------------------------------------------------- */
MIOPEN_DECLARE_OBJECT(miopenHandle);

typedef enum {
  miopenStatusSuccess = 0,
  miopenStatusNotInitialized = 1,
  miopenStatusInvalidValue = 2,
  miopenStatusBadParm = 3,
  miopenStatusAllocFailed = 4,
  miopenStatusInternalError = 5,
  miopenStatusNotImplemented = 6,
  miopenStatusUnknownError = 7,
  miopenStatusUnsupportedOp = 8,
  miopenStatusGpuOperationsSkipped = 9,
  miopenStatusVersionMismatch = 10,
} miopenStatus_t;

#ifdef MIOPEN_BETA_API
typedef enum {
  miopenF8RoundingModeStandard = 0,
  miopenF8RoundingModeStochastic = 1,
} miopenF8RoundingMode_t;
#endif

MIOPEN_EXPORT const char* miopenGetErrorString(miopenStatus_t error);

typedef void* (*miopenAllocatorFunction)(void* context, size_t sizeBytes);
typedef void (*miopenDeallocatorFunction)(void* context, void* memory);

MIOPEN_EXPORT miopenStatus_t miopenGetVersion(size_t* major, size_t* minor, size_t* patch);
MIOPEN_EXPORT miopenStatus_t miopenCreate(miopenHandle_t* handle);
MIOPEN_EXPORT miopenStatus_t miopenCreateWithStream(miopenHandle_t* handle,
                                                    miopenAcceleratorQueue_t stream);
MIOPEN_EXPORT miopenStatus_t miopenDestroy(miopenHandle_t handle);
MIOPEN_EXPORT miopenStatus_t miopenSetStream(miopenHandle_t handle,
                                             miopenAcceleratorQueue_t streamID);
MIOPEN_EXPORT miopenStatus_t miopenGetStream(miopenHandle_t handle,
                                             miopenAcceleratorQueue_t* streamID);
MIOPEN_EXPORT miopenStatus_t miopenSetAllocator(miopenHandle_t handle,
                                                miopenAllocatorFunction allocator,
                                                miopenDeallocatorFunction deallocator,
                                                void* allocatorContext);
MIOPEN_EXPORT miopenStatus_t miopenGetKernelTime(miopenHandle_t handle, float* time);
MIOPEN_EXPORT miopenStatus_t miopenEnableProfiling(miopenHandle_t handle, bool enable);

/* ---------------------------------------------------------------------------------------------
 * Opaque descriptors
 * ------------------------------------------------------------------------------------------- */
MIOPEN_DECLARE_OBJECT(miopenTensorDescriptor);
MIOPEN_DECLARE_OBJECT(miopenSeqTensorDescriptor);
MIOPEN_DECLARE_OBJECT(miopenConvolutionDescriptor);
MIOPEN_DECLARE_OBJECT(miopenActivationDescriptor);
MIOPEN_DECLARE_OBJECT(miopenRNNDescriptor);
MIOPEN_DECLARE_OBJECT(miopenDropoutDescriptor);
MIOPEN_DECLARE_OBJECT(miopenReduceTensorDescriptor);

/* ---------------------------------------------------------------------------------------------
 * Enumerations shared by several families
 * ------------------------------------------------------------------------------------------- */
typedef enum {
  miopenHalf = 0,
  miopenFloat = 1,
  miopenInt32 = 2,
  miopenInt8 = 3,
  /* 4 was miopenInt8x4, discontinued */
  miopenBFloat16 = 5,
  miopenDouble = 6,
#ifdef MIOPEN_BETA_API
  miopenFloat8 = 7,
  miopenBFloat8 = 8,
#endif
  miopenInt64 = 9,
} miopenDataType_t;

typedef enum {
  miopenTensorNCHW = 0,
  miopenTensorNHWC = 1,
  miopenTensorCHWN = 2,
  miopenTensorNCHWc4 = 3,
  miopenTensorNCHWc8 = 4,
  miopenTensorCHWNc4 = 5,
  miopenTensorCHWNc8 = 6,
  miopenTensorNCDHW = 7,
  miopenTensorNDHWC = 8,
} miopenTensorLayout_t;

typedef enum {
  miopenTensorOpAdd = 0,
  miopenTensorOpMul = 1,
  miopenTensorOpMin = 2,
  miopenTensorOpMax = 3,
} miopenTensorOp_t;

typedef enum {
  miopenConvolution = 0,
  miopenTranspose = 1,
  miopenGroupConv = 2, /* deprecated: use miopenConvolution + miopenSetConvolutionGroupCount */
  miopenDepthwise = 3, /* deprecated: use miopenConvolution + miopenSetConvolutionGroupCount */
} miopenConvolutionMode_t;

typedef enum {
  miopenPaddingDefault = 0,
  miopenPaddingSame = 1,
  miopenPaddingValid = 2,
} miopenPaddingMode_t;

typedef enum {
  miopenBNPerActivation = 0,
  miopenBNSpatial = 1,
} miopenBatchNormMode_t;

typedef enum {
  miopenActivationPASTHRU = 0,
  miopenActivationLOGISTIC = 1,
  miopenActivationTANH = 2,
  miopenActivationRELU = 3,
  miopenActivationSOFTRELU = 4,
  miopenActivationABS = 5,
  miopenActivationPOWER = 6,
  miopenActivationCLIPPEDRELU = 7,
  miopenActivationLEAKYRELU = 8,
  miopenActivationELU = 9,
} miopenActivationMode_t;

typedef enum {
  MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL = 0,
  MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC = 1,
#ifdef MIOPEN_BETA_API
  MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE = 2,
#endif
} miopenConvolutionAttrib_t;

/* ---------------------------------------------------------------------------------------------
 * Tensors
 * ------------------------------------------------------------------------------------------- */
MIOPEN_EXPORT miopenStatus_t miopenCreateTensorDescriptor(miopenTensorDescriptor_t* tensorDesc);
MIOPEN_EXPORT miopenStatus_t miopenSet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                         miopenDataType_t dataType, int n, int c,
                                                         int h, int w);
MIOPEN_EXPORT miopenStatus_t miopenSetNdTensorDescriptorWithLayout(
    miopenTensorDescriptor_t tensorDesc, miopenDataType_t dataType,
    miopenTensorLayout_t tensorLayout, const int* lens, int num_lens);
MIOPEN_EXPORT miopenStatus_t miopenSet4dTensorDescriptorEx(miopenTensorDescriptor_t tensorDesc,
                                                           miopenDataType_t dataType, int n, int c,
                                                           int h, int w, int nStride, int cStride,
                                                           int hStride, int wStride);
MIOPEN_EXPORT miopenStatus_t miopenGet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                         miopenDataType_t* dataType, int* n, int* c,
                                                         int* h, int* w, int* nStride, int* cStride,
                                                         int* hStride, int* wStride);
MIOPEN_EXPORT miopenStatus_t miopenSetTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                       miopenDataType_t dataType, int nbDims,
                                                       const int* dimsA, const int* stridesA);
#ifdef MIOPEN_BETA_API
MIOPEN_EXPORT miopenStatus_t miopenSetTensorDescriptorV2(miopenTensorDescriptor_t tensorDesc,
                                                         miopenDataType_t dataType, int nbDims,
                                                         const size_t* dimsA,
                                                         const size_t* stridesA);
MIOPEN_EXPORT miopenStatus_t miopenSetTensorCastType(miopenTensorDescriptor_t tensorDesc,
                                                     miopenDataType_t cast_type);
#endif
MIOPEN_EXPORT miopenStatus_t miopenGetTensorDescriptorSize(miopenTensorDescriptor_t tensorDesc,
                                                           int* size);
MIOPEN_EXPORT miopenStatus_t miopenGetTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                       miopenDataType_t* dataType, int* dimsA,
                                                       int* stridesA);
MIOPEN_EXPORT miopenStatus_t miopenDestroyTensorDescriptor(miopenTensorDescriptor_t tensorDesc);
MIOPEN_EXPORT miopenStatus_t
miopenCreateSeqTensorDescriptor(miopenSeqTensorDescriptor_t* tensorDesc);
MIOPEN_EXPORT miopenStatus_t
miopenDestroySeqTensorDescriptor(miopenSeqTensorDescriptor_t tensorDesc);
MIOPEN_EXPORT miopenStatus_t miopenOpTensor(miopenHandle_t handle, miopenTensorOp_t tensorOp,
                                            const void* alpha1,
                                            const miopenTensorDescriptor_t aDesc, const void* A,
                                            const void* alpha2,
                                            const miopenTensorDescriptor_t bDesc, const void* B,
                                            const void* beta, const miopenTensorDescriptor_t cDesc,
                                            void* C);
MIOPEN_EXPORT miopenStatus_t miopenSetTensor(miopenHandle_t handle,
                                             const miopenTensorDescriptor_t yDesc, void* y,
                                             const void* alpha);
MIOPEN_EXPORT miopenStatus_t miopenScaleTensor(miopenHandle_t handle,
                                               const miopenTensorDescriptor_t yDesc, void* y,
                                               const void* alpha);
MIOPEN_EXPORT miopenStatus_t miopenGetTensorNumBytes(miopenTensorDescriptor_t tensorDesc,
                                                     size_t* numBytes);
MIOPEN_EXPORT miopenStatus_t miopenTransformTensor(miopenHandle_t handle, const void* alpha,
                                                   const miopenTensorDescriptor_t xDesc,
                                                   const void* x, const void* beta,
                                                   const miopenTensorDescriptor_t yDesc, void* y);

/* ---------------------------------------------------------------------------------------------
 * Convolution
 * ------------------------------------------------------------------------------------------- */
MIOPEN_EXPORT miopenStatus_t
miopenCreateConvolutionDescriptor(miopenConvolutionDescriptor_t* convDesc);
MIOPEN_EXPORT miopenStatus_t miopenInitConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                             miopenConvolutionMode_t c_mode,
                                                             int pad_h, int pad_w, int stride_h,
                                                             int stride_w, int dilation_h,
                                                             int dilation_w);
MIOPEN_EXPORT miopenStatus_t miopenInitConvolutionNdDescriptor(
    miopenConvolutionDescriptor_t convDesc, int spatialDim, const int* padA, const int* strideA,
    const int* dilationA, miopenConvolutionMode_t c_mode);
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionSpatialDim(miopenConvolutionDescriptor_t convDesc,
                                                            int* spatialDim);
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                            miopenConvolutionMode_t* c_mode,
                                                            int* pad_h, int* pad_w, int* stride_h,
                                                            int* stride_w, int* dilation_h,
                                                            int* dilation_w);
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionNdDescriptor(
    miopenConvolutionDescriptor_t convDesc, int requestedSpatialDim, int* spatialDim, int* padA,
    int* strideA, int* dilationA, miopenConvolutionMode_t* c_mode);
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc,
                                                            int* groupCount);
MIOPEN_EXPORT miopenStatus_t miopenSetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc,
                                                            int groupCount);
MIOPEN_EXPORT miopenStatus_t
miopenSetTransposeConvOutputPadding(miopenConvolutionDescriptor_t convDesc, int adj_h, int adj_w);
MIOPEN_EXPORT miopenStatus_t miopenSetTransposeConvNdOutputPadding(
    miopenConvolutionDescriptor_t convDesc, int spatialDim, const int* adjA);
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionForwardOutputDim(
    miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t inputTensorDesc,
    const miopenTensorDescriptor_t filterDesc, int* n, int* c, int* h, int* w);
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionNdForwardOutputDim(
    miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t inputTensorDesc,
    const miopenTensorDescriptor_t filterDesc, int* nDim, int* outputTensorDimA);
MIOPEN_EXPORT miopenStatus_t
miopenDestroyConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                                           const miopenConvolutionAttrib_t attr,
                                                           int value);
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                                           const miopenConvolutionAttrib_t attr,
                                                           int* value);

typedef enum {
  miopenConvolutionFwdAlgoGEMM = 0,
  miopenConvolutionFwdAlgoDirect = 1,
  miopenConvolutionFwdAlgoFFT = 2,
  miopenConvolutionFwdAlgoWinograd = 3,
  miopenConvolutionFwdAlgoImplicitGEMM = 5,
} miopenConvFwdAlgorithm_t;

typedef enum {
  miopenConvolutionBwdWeightsAlgoGEMM = 0,
  miopenConvolutionBwdWeightsAlgoDirect = 1,
  miopenConvolutionBwdWeightsAlgoWinograd = 3,
  miopenConvolutionBwdWeightsAlgoImplicitGEMM = 5,
} miopenConvBwdWeightsAlgorithm_t;

typedef enum {
  miopenConvolutionBwdDataAlgoGEMM = 0,
  miopenConvolutionBwdDataAlgoDirect = 1,
  miopenConvolutionBwdDataAlgoFFT = 2,
  miopenConvolutionBwdDataAlgoWinograd = 3,
  miopenTransposeBwdDataAlgoGEMM = 4, /* deprecated */
  miopenConvolutionBwdDataAlgoImplicitGEMM = 5,
} miopenConvBwdDataAlgorithm_t;

typedef enum {
  miopenConvolutionAlgoGEMM = 0,
  miopenConvolutionAlgoDirect = 1,
  miopenConvolutionAlgoFFT = 2,
  miopenConvolutionAlgoWinograd = 3,
  miopenConvolutionAlgoImplicitGEMM = 5,
} miopenConvAlgorithm_t;

/* One Find result: the algorithm, its time in ms and the workspace it needs in bytes. */
typedef struct {
  MIOPEN_ANONYMOUS_UNION {
    miopenConvFwdAlgorithm_t fwd_algo;
    miopenConvBwdWeightsAlgorithm_t bwd_weights_algo;
    miopenConvBwdDataAlgorithm_t bwd_data_algo;
  };
  float time;
  size_t memory;
} miopenConvAlgoPerf_t;

/* One immediate-mode solution. time < 0 means "not measured" (a heuristic ranking). */
typedef struct {
  float time;
  size_t workspace_size;
  uint64_t solution_id;
  miopenConvAlgorithm_t algorithm;
} miopenConvSolution_t;

MIOPEN_EXPORT miopenStatus_t miopenConvolutionForwardGetSolutionCount(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, size_t* solutionCount);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionForwardGetSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, const size_t maxSolutionCount, size_t* solutionCount,
    miopenConvSolution_t* solutions);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionForwardGetSolutionWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, const uint64_t solution_id, size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionForwardCompileSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, const uint64_t solution_id);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionForwardImmediate(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t yDesc, void* y,
    void* workSpace, size_t workSpaceSize, const uint64_t solution_id);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardDataGetSolutionCount(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, size_t* solutionCount);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardDataGetSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, const size_t maxSolutionCount, size_t* solutionCount,
    miopenConvSolution_t* solutions);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardDataGetSolutionWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, const uint64_t solution_id, size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardDataCompileSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, const uint64_t solution_id);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardDataImmediate(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dxDesc, void* dx,
    void* workSpace, size_t workSpaceSize, const uint64_t solution_id);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardWeightsGetSolutionCount(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, size_t* solutionCount);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardWeightsGetSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, const size_t maxSolutionCount, size_t* solutionCount,
    miopenConvSolution_t* solutions);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, const uint64_t solution_id, size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardWeightsCompileSolution(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, const uint64_t solution_id);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardWeightsImmediate(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dwDesc, void* dw,
    void* workSpace, size_t workSpaceSize, const uint64_t solution_id);

MIOPEN_EXPORT miopenStatus_t miopenConvolutionForwardGetWorkSpaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t wDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t yDesc, size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenFindConvolutionForwardAlgorithm(
    miopenHandle_t handle, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t yDesc, void* y,
    const int requestAlgoCount, int* returnedAlgoCount, miopenConvAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSize, bool exhaustiveSearch);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionForward(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, miopenConvFwdAlgorithm_t algo, const void* beta,
    const miopenTensorDescriptor_t yDesc, void* y, void* workSpace, size_t workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionForwardBias(miopenHandle_t handle, const void* alpha,
                                                          const miopenTensorDescriptor_t bDesc,
                                                          const void* b, const void* beta,
                                                          const miopenTensorDescriptor_t yDesc,
                                                          void* y);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardDataGetWorkSpaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t wDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dxDesc, size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenFindConvolutionBackwardDataAlgorithm(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dxDesc, void* dx,
    const int requestAlgoCount, int* returnedAlgoCount, miopenConvAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSize, bool exhaustiveSearch);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardData(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, miopenConvBwdDataAlgorithm_t algo,
    const void* beta, const miopenTensorDescriptor_t dxDesc, void* dx, void* workSpace,
    size_t workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardWeightsGetWorkSpaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc,
    const miopenTensorDescriptor_t xDesc, const miopenConvolutionDescriptor_t convDesc,
    const miopenTensorDescriptor_t dwDesc, size_t* workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenFindConvolutionBackwardWeightsAlgorithm(
    miopenHandle_t handle, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t dwDesc, void* dw,
    const int requestAlgoCount, int* returnedAlgoCount, miopenConvAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSize, bool exhaustiveSearch);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardWeights(
    miopenHandle_t handle, const void* alpha, const miopenTensorDescriptor_t dyDesc, const void* dy,
    const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenConvolutionDescriptor_t convDesc, miopenConvBwdWeightsAlgorithm_t algo,
    const void* beta, const miopenTensorDescriptor_t dwDesc, void* dw, void* workSpace,
    size_t workSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBackwardBias(miopenHandle_t handle, const void* alpha,
                                                           const miopenTensorDescriptor_t dyDesc,
                                                           const void* dy, const void* beta,
                                                           const miopenTensorDescriptor_t dbDesc,
                                                           void* db);

/* Tensor reduction (MIOpen's TensorReduce group): C = alpha * reduceOp(A) + beta * C, reducing
 * the dimensions where C's length is 1. */
#define MIOPEN_API_VERSION_REDUCE_TENSOR 1

typedef enum {
  MIOPEN_REDUCE_TENSOR_ADD = 0,
  MIOPEN_REDUCE_TENSOR_MUL = 1,
  MIOPEN_REDUCE_TENSOR_MIN = 2,
  MIOPEN_REDUCE_TENSOR_MAX = 3,
  MIOPEN_REDUCE_TENSOR_AMAX = 4,
  MIOPEN_REDUCE_TENSOR_AVG = 5,
  MIOPEN_REDUCE_TENSOR_NORM1 = 6,
  MIOPEN_REDUCE_TENSOR_NORM2 = 7,
} miopenReduceTensorOp_t;

typedef enum {
  MIOPEN_NOT_PROPAGATE_NAN = 0,
  MIOPEN_PROPAGATE_NAN = 1,
} miopenNanPropagation_t;

typedef enum {
  MIOPEN_REDUCE_TENSOR_NO_INDICES = 0,
  MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES = 1,
} miopenReduceTensorIndices_t;

typedef enum {
  MIOPEN_32BIT_INDICES = 0,
  MIOPEN_64BIT_INDICES = 1,
  MIOPEN_16BIT_INDICES = 2,
  MIOPEN_8BIT_INDICES = 3,
} miopenIndicesType_t;

MIOPEN_EXPORT miopenStatus_t
miopenCreateReduceTensorDescriptor(miopenReduceTensorDescriptor_t* reduceTensorDesc);
MIOPEN_EXPORT miopenStatus_t
miopenDestroyReduceTensorDescriptor(miopenReduceTensorDescriptor_t reduceTensorDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetReduceTensorDescriptor(
    miopenReduceTensorDescriptor_t reduceTensorDesc, miopenReduceTensorOp_t reduceTensorOp,
    miopenDataType_t reduceTensorCompType, miopenNanPropagation_t reduceTensorNanOpt,
    miopenReduceTensorIndices_t reduceTensorIndices, miopenIndicesType_t reduceTensorIndicesType);
MIOPEN_EXPORT miopenStatus_t miopenGetReduceTensorDescriptor(
    const miopenReduceTensorDescriptor_t reduceTensorDesc, miopenReduceTensorOp_t* reduceTensorOp,
    miopenDataType_t* reduceTensorCompType, miopenNanPropagation_t* reduceTensorNanOpt,
    miopenReduceTensorIndices_t* reduceTensorIndices, miopenIndicesType_t* reduceTensorIndicesType);
MIOPEN_EXPORT miopenStatus_t miopenGetReductionIndicesSize(
    miopenHandle_t handle, const miopenReduceTensorDescriptor_t reduceTensorDesc,
    const miopenTensorDescriptor_t aDesc, const miopenTensorDescriptor_t cDesc,
    size_t* sizeInBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetReductionWorkspaceSize(
    miopenHandle_t handle, const miopenReduceTensorDescriptor_t reduceTensorDesc,
    const miopenTensorDescriptor_t aDesc, const miopenTensorDescriptor_t cDesc,
    size_t* sizeInBytes);
MIOPEN_EXPORT miopenStatus_t miopenReduceTensor(
    miopenHandle_t handle, const miopenReduceTensorDescriptor_t reduceTensorDesc, void* indices,
    size_t indicesSizeInBytes, void* workspace, size_t workspaceSizeInBytes, const void* alpha,
    const miopenTensorDescriptor_t aDesc, const void* A, const void* beta,
    const miopenTensorDescriptor_t cDesc, void* C);

#include <miopen/miopen_batchnorm.h>
#include <miopen/miopen_ctc.h>
#include <miopen/miopen_fusion.h>
#include <miopen/miopen_lrn.h>
#include <miopen/miopen_pooling.h>
#include <miopen/miopen_rnn.h>
#include <miopen/miopen_softmax.h>
/* After softmax: a softmax problem takes its descriptor. */
#include <miopen/miopen_find2.h>

#ifdef __cplusplus
}
#endif

#endif /* MIOPEN_GUARD_MIOPEN_H_ */
