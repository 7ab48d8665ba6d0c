/* RNN and dropout. Included by miopen.h inside its extern "C" block. */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_RNN_H_
#define MIOPEN_GUARD_MIOPEN_RNN_H_

typedef enum {
  miopenRNNRELU = 0,
  miopenRNNTANH = 1,
  miopenLSTM = 2,
  miopenGRU = 3,
} miopenRNNMode_t;

typedef enum {
  miopenRNNlinear = 0,
  miopenRNNskip = 1,
} miopenRNNInputMode_t;

typedef enum {
  miopenRNNdefault = 0,
  miopenRNNfundamental = 1,
} miopenRNNAlgo_t;

typedef enum {
  miopenRNNunidirection = 0,
  miopenRNNbidirection = 1,
} miopenRNNDirectionMode_t;

typedef enum {
  miopenRNNNoBias = 0,
  miopenRNNwithBias = 1,
} miopenRNNBiasMode_t;

typedef enum {
  miopenRNNAlgoGEMM = 0,
} miopenRNNGEMMalgoMode_t;

typedef enum {
  miopenRNNIONotPadded = 0,
  miopenRNNIOWithPadding = 1,
} miopenRNNPaddingMode_t;

typedef enum {
  miopenRNNTraining = 0,
  miopenRNNInference = 1,
} miopenRNNFWDMode_t;

typedef enum {
  miopenRNNDataUnknownLayout = 0,
  miopenRNNDataSeqMajorNotPadded = 1,
  miopenRNNDataSeqMajorPadded = 2,
  miopenRNNDataBatchMajorPadded = 3,
} miopenRNNBaseLayout_t;

typedef enum {
  MIOPEN_RNG_PSEUDO_XORWOW = 0,
} miopenRNGType_t;

MIOPEN_EXPORT miopenStatus_t miopenCreateRNNDescriptor(miopenRNNDescriptor_t* rnnDesc);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNDescriptor(
    miopenRNNDescriptor_t rnnDesc, miopenRNNMode_t* rnnMode, miopenRNNAlgo_t* algoMode,
    miopenRNNInputMode_t* inputMode, miopenRNNDirectionMode_t* dirMode,
    miopenRNNBiasMode_t* biasMode, int* hiddenSize, int* layer);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNDescriptor_V2(
    miopenRNNDescriptor_t rnnDesc, int* hiddenSize, int* layer,
    miopenDropoutDescriptor_t* dropoutDesc, miopenRNNInputMode_t* inputMode,
    miopenRNNDirectionMode_t* dirMode, miopenRNNMode_t* rnnMode, miopenRNNBiasMode_t* biasMode,
    miopenRNNAlgo_t* algoMode, miopenDataType_t* dataType);
MIOPEN_EXPORT miopenStatus_t miopenDestroyRNNDescriptor(miopenRNNDescriptor_t rnnDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetRNNDescriptor(
    miopenRNNDescriptor_t rnnDesc, const int hsize, const int nlayers, miopenRNNInputMode_t inMode,
    miopenRNNDirectionMode_t direction, miopenRNNMode_t rnnMode, miopenRNNBiasMode_t biasMode,
    miopenRNNAlgo_t algo, miopenDataType_t dataType);
MIOPEN_EXPORT miopenStatus_t miopenSetRNNDescriptor_V2(
    miopenRNNDescriptor_t rnnDesc, const int hsize, const int nlayers,
    miopenDropoutDescriptor_t dropoutDesc, miopenRNNInputMode_t inMode,
    miopenRNNDirectionMode_t direction, miopenRNNMode_t rnnMode, miopenRNNBiasMode_t biasMode,
    miopenRNNAlgo_t algo, miopenDataType_t dataType);
MIOPEN_EXPORT miopenStatus_t miopenSetRNNDataSeqTensorDescriptor(
    miopenSeqTensorDescriptor_t seqTensorDesc, miopenDataType_t dataType,
    miopenRNNBaseLayout_t layout, int maxSequenceLen, int batchSize, int vectorSize,
    const int* sequenceLenArray, void* paddingMarker);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNDataSeqTensorDescriptor(
    miopenSeqTensorDescriptor_t seqTensorDesc, miopenDataType_t* dataType,
    miopenRNNBaseLayout_t* layout, int* maxSequenceLen, int* batchSize, int* vectorSize,
    int sequenceLenArrayLimit, int* sequenceLenArray, void* paddingMarker);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNWorkspaceSize(miopenHandle_t handle,
                                                       const miopenRNNDescriptor_t rnnDesc,
                                                       const int sequenceLen,
                                                       const miopenTensorDescriptor_t* xDesc,
                                                       size_t* numBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNTrainingReserveSize(miopenHandle_t handle,
                                                             miopenRNNDescriptor_t rnnDesc,
                                                             const int sequenceLen,
                                                             const miopenTensorDescriptor_t* xDesc,
                                                             size_t* numBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNTempSpaceSizes(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, miopenSeqTensorDescriptor_t xDesc,
    miopenRNNFWDMode_t fwdMode, size_t* workSpaceSize, size_t* reserveSpaceSize);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNParamsSize(miopenHandle_t handle,
                                                    miopenRNNDescriptor_t rnnDesc,
                                                    miopenTensorDescriptor_t xDesc,
                                                    size_t* numBytes, miopenDataType_t dtype);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNParamsDescriptor(miopenHandle_t handle,
                                                          miopenRNNDescriptor_t rnnDesc,
                                                          miopenTensorDescriptor_t xDesc,
                                                          miopenTensorDescriptor_t wDesc,
                                                          miopenDataType_t dtype);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNInputTensorSize(miopenHandle_t handle,
                                                         miopenRNNDescriptor_t rnnDesc,
                                                         const int seqLen,
                                                         miopenTensorDescriptor_t* xDesc,
                                                         size_t* numBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNHiddenTensorSize(miopenHandle_t handle,
                                                          miopenRNNDescriptor_t rnnDesc,
                                                          const int seqLen,
                                                          miopenTensorDescriptor_t* xDesc,
                                                          size_t* numBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNLayerParamSize(miopenHandle_t handle,
                                                        miopenRNNDescriptor_t rnnDesc,
                                                        const int layer,
                                                        miopenTensorDescriptor_t xDesc,
                                                        const int paramID, size_t* numBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNLayerBiasSize(miopenHandle_t handle,
                                                       miopenRNNDescriptor_t rnnDesc,
                                                       const int layer, const int biasID,
                                                       size_t* numBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNLayerParam(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int layer,
    miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc, const void* w,
    const int paramID, miopenTensorDescriptor_t paramDesc, void* layerParam);
MIOPEN_EXPORT miopenStatus_t
miopenGetRNNLayerBias(miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int layer,
                      miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc, const void* w,
                      const int biasID, miopenTensorDescriptor_t biasDesc, void* layerBias);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNLayerParamOffset(
    miopenRNNDescriptor_t rnnDesc, const int layer, miopenTensorDescriptor_t xDesc,
    const int paramID, miopenTensorDescriptor_t paramDesc, size_t* layerParamOffset);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNLayerBiasOffset(
    miopenRNNDescriptor_t rnnDesc, const int layer, miopenTensorDescriptor_t xDesc,
    const int biasID, miopenTensorDescriptor_t biasDesc, size_t* layerBiasOffset);
MIOPEN_EXPORT miopenStatus_t miopenSetRNNLayerParam(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int layer,
    miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc, void* w, const int paramID,
    miopenTensorDescriptor_t paramDesc, const void* layerParam);
MIOPEN_EXPORT miopenStatus_t
miopenSetRNNLayerBias(miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int layer,
                      miopenTensorDescriptor_t xDesc, miopenTensorDescriptor_t wDesc, void* w,
                      const int biasID, miopenTensorDescriptor_t biasDesc, const void* layerBias);
MIOPEN_EXPORT miopenStatus_t miopenSetRNNPaddingMode(miopenRNNDescriptor_t rnnDesc,
                                                     miopenRNNPaddingMode_t paddingMode);
MIOPEN_EXPORT miopenStatus_t miopenGetRNNPaddingMode(miopenRNNDescriptor_t rnnDesc,
                                                     miopenRNNPaddingMode_t* paddingMode);
MIOPEN_EXPORT miopenStatus_t miopenRNNForward(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, miopenRNNFWDMode_t fwdMode,
    const miopenSeqTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t hDesc,
    const void* hx, void* hy, const miopenTensorDescriptor_t cDesc, const void* cx, void* cy,
    const miopenSeqTensorDescriptor_t yDesc, void* y, const void* w, size_t weightSpaceSize,
    void* workSpace, size_t workSpaceNumBytes, void* reserveSpace, size_t reserveSpaceNumBytes);
MIOPEN_EXPORT miopenStatus_t miopenRNNBackwardSeqData(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc,
    const miopenSeqTensorDescriptor_t yDesc, const void* y, const void* dy,
    const miopenTensorDescriptor_t hDesc, const void* hx, const void* dhy, void* dhx,
    const miopenTensorDescriptor_t cDesc, const void* cx, const void* dcy, void* dcx,
    const miopenSeqTensorDescriptor_t xDesc, void* dx, const void* w, size_t weightSpaceSize,
    void* workSpace, size_t workSpaceNumBytes, void* reserveSpace, size_t reserveSpaceNumBytes);
MIOPEN_EXPORT miopenStatus_t miopenRNNBackwardWeightsSeqTensor(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc,
    const miopenSeqTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t hDesc,
    const void* hx, const miopenSeqTensorDescriptor_t yDesc, const void* y, void* dw,
    size_t weightSpaceSize, void* workSpace, size_t workSpaceNumBytes, const void* reserveSpace,
    size_t reserveSpaceNumBytes);
MIOPEN_EXPORT miopenStatus_t miopenRNNForwardTraining(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* xDesc, const void* x, const miopenTensorDescriptor_t hxDesc,
    const void* hx, const miopenTensorDescriptor_t cxDesc, const void* cx,
    const miopenTensorDescriptor_t wDesc, const void* w, const miopenTensorDescriptor_t* yDesc,
    void* y, const miopenTensorDescriptor_t hyDesc, void* hy, const miopenTensorDescriptor_t cyDesc,
    void* cy, void* workSpace, size_t workSpaceNumBytes, void* reserveSpace,
    size_t reserveSpaceNumBytes);
MIOPEN_EXPORT miopenStatus_t miopenRNNBackwardData(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* yDesc, const void* y, const miopenTensorDescriptor_t* dyDesc,
    const void* dy, const miopenTensorDescriptor_t dhyDesc, const void* dhy,
    const miopenTensorDescriptor_t dcyDesc, const void* dcy, const miopenTensorDescriptor_t wDesc,
    const void* w, const miopenTensorDescriptor_t hxDesc, const void* hx,
    const miopenTensorDescriptor_t cxDesc, const void* cx, const miopenTensorDescriptor_t* dxDesc,
    void* dx, const miopenTensorDescriptor_t dhxDesc, void* dhx,
    const miopenTensorDescriptor_t dcxDesc, void* dcx, void* workSpace, size_t workSpaceNumBytes,
    void* reserveSpace, size_t reserveSpaceNumBytes);
MIOPEN_EXPORT miopenStatus_t miopenRNNBackwardWeights(
    miopenHandle_t handle, const miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* xDesc, const void* x, const miopenTensorDescriptor_t hxDesc,
    const void* hx, const miopenTensorDescriptor_t* yDesc, const void* y,
    const miopenTensorDescriptor_t dwDesc, void* dw, void* workSpace, size_t workSpaceNumBytes,
    const void* reserveSpace, size_t reserveSpaceNumBytes);
MIOPEN_EXPORT miopenStatus_t miopenRNNForwardInference(
    miopenHandle_t handle, miopenRNNDescriptor_t rnnDesc, const int sequenceLen,
    const miopenTensorDescriptor_t* xDesc, const void* x, const miopenTensorDescriptor_t hxDesc,
    const void* hx, const miopenTensorDescriptor_t cxDesc, const void* cx,
    const miopenTensorDescriptor_t wDesc, const void* w, const miopenTensorDescriptor_t* yDesc,
    void* y, const miopenTensorDescriptor_t hyDesc, void* hy, const miopenTensorDescriptor_t cyDesc,
    void* cy, void* workSpace, size_t workSpaceNumBytes);

MIOPEN_EXPORT miopenStatus_t miopenCreateDropoutDescriptor(miopenDropoutDescriptor_t* dropoutDesc);
MIOPEN_EXPORT miopenStatus_t miopenDestroyDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc);
MIOPEN_EXPORT miopenStatus_t miopenDropoutGetReserveSpaceSize(const miopenTensorDescriptor_t xDesc,
                                                              size_t* reserveSpaceSizeInBytes);
MIOPEN_EXPORT miopenStatus_t miopenDropoutGetStatesSize(miopenHandle_t handle,
                                                        size_t* stateSizeInBytes);
MIOPEN_EXPORT miopenStatus_t miopenGetDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc,
                                                        miopenHandle_t handle, float* dropout,
                                                        void** states, unsigned long long* seed,
                                                        bool* use_mask, bool* state_evo,
                                                        miopenRNGType_t* rng_mode);
MIOPEN_EXPORT miopenStatus_t miopenRestoreDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc,
                                                            miopenHandle_t handle, float dropout,
                                                            void* states, size_t stateSizeInBytes,
                                                            unsigned long long seed, bool use_mask,
                                                            bool state_evo,
                                                            miopenRNGType_t rng_mode);
MIOPEN_EXPORT miopenStatus_t miopenSetDropoutDescriptor(miopenDropoutDescriptor_t dropoutDesc,
                                                        miopenHandle_t handle, float dropout,
                                                        void* states, size_t stateSizeInBytes,
                                                        unsigned long long seed, bool use_mask,
                                                        bool state_evo, miopenRNGType_t rng_mode);
MIOPEN_EXPORT miopenStatus_t miopenDropoutForward(
    miopenHandle_t handle, const miopenDropoutDescriptor_t dropoutDesc,
    const miopenTensorDescriptor_t noise_shape, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t yDesc, void* y, void* reserveSpace,
    size_t reserveSpaceSizeInBytes);
MIOPEN_EXPORT miopenStatus_t miopenDropoutBackward(
    miopenHandle_t handle, const miopenDropoutDescriptor_t dropoutDesc,
    const miopenTensorDescriptor_t noise_shape, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t dxDesc, void* dx, void* reserveSpace,
    size_t reserveSpaceSizeInBytes);

#endif /* MIOPEN_GUARD_MIOPEN_RNN_H_ */
