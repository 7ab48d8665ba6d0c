/* Batch normalization and activation. Included by miopen.h inside its extern "C" block. */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_BATCHNORM_H_
#define MIOPEN_GUARD_MIOPEN_BATCHNORM_H_

MIOPEN_EXPORT miopenStatus_t miopenDeriveBNTensorDescriptor(miopenTensorDescriptor_t derivedBnDesc,
                                                            const miopenTensorDescriptor_t xDesc,
                                                            miopenBatchNormMode_t bn_mode);
MIOPEN_EXPORT miopenStatus_t miopenBatchNormalizationForwardTraining(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc, void* bnScale, void* bnBias,
    double expAvgFactor, void* resultRunningMean, void* resultRunningVariance, double epsilon,
    void* resultSaveMean, void* resultSaveInvVariance);
MIOPEN_EXPORT miopenStatus_t miopenBatchNormalizationForwardTraining_V2(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t scaleDesc, const miopenTensorDescriptor_t biasVarDesc,
    const miopenTensorDescriptor_t savedMeanDesc, const miopenTensorDescriptor_t savedVarDesc,
    void* bnScale, void* bnBias, double expAvgFactor, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean, void* resultSaveInvVariance);
MIOPEN_EXPORT miopenStatus_t miopenBatchNormalizationForwardInference(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc, void* bnScale, void* bnBias,
    void* estimatedMean, void* estimatedVariance, double epsilon);
MIOPEN_EXPORT miopenStatus_t miopenBatchNormalizationForwardInference_V2(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t scaleDesc, const miopenTensorDescriptor_t biasDesc,
    const miopenTensorDescriptor_t estMeanDesc, const miopenTensorDescriptor_t estVarianceDesc,
    void* bnScale, void* bnBias, void* estimatedMean, void* estimatedVariance, double epsilon);
MIOPEN_EXPORT miopenStatus_t miopenBatchNormalizationBackward(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, const void* alphaDataDiff,
    const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t dxDesc, void* dx,
    const miopenTensorDescriptor_t bnScaleBiasDiffDesc, const void* bnScale,
    void* resultBnScaleDiff, void* resultBnBiasDiff, double epsilon, const void* savedMean,
    const void* savedInvVariance);
MIOPEN_EXPORT miopenStatus_t miopenBatchNormalizationBackward_V2(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, const void* alphaDataDiff,
    const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t dxDesc, void* dx,
    const miopenTensorDescriptor_t scaleDesc, const miopenTensorDescriptor_t biasDesc,
    const miopenTensorDescriptor_t savedMeanDesc, const miopenTensorDescriptor_t savedVarDesc,
    const void* bnScale, void* resultBnScaleDiff, void* resultBnBiasDiff, double epsilon,
    const void* savedMean, const void* savedInvVariance);

MIOPEN_EXPORT miopenStatus_t
miopenCreateActivationDescriptor(miopenActivationDescriptor_t* activDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetActivationDescriptor(
    const miopenActivationDescriptor_t activDesc, miopenActivationMode_t mode, double activAlpha,
    double activBeta, double activGamma);
MIOPEN_EXPORT miopenStatus_t miopenGetActivationDescriptor(
    const miopenActivationDescriptor_t activDesc, miopenActivationMode_t* mode, double* activAlpha,
    double* activBeta, double* activGamma);
MIOPEN_EXPORT miopenStatus_t miopenActivationForward(miopenHandle_t handle,
                                                     const miopenActivationDescriptor_t activDesc,
                                                     const void* alpha,
                                                     const miopenTensorDescriptor_t xDesc,
                                                     const void* x, const void* beta,
                                                     const miopenTensorDescriptor_t yDesc, void* y);
MIOPEN_EXPORT miopenStatus_t miopenActivationBackward(
    miopenHandle_t handle, const miopenActivationDescriptor_t activDesc, const void* alpha,
    const miopenTensorDescriptor_t yDesc, const void* y, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t xDesc, const void* x, const void* beta,
    const miopenTensorDescriptor_t dxDesc, void* dx);
MIOPEN_EXPORT miopenStatus_t
miopenDestroyActivationDescriptor(miopenActivationDescriptor_t activDesc);

#endif /* MIOPEN_GUARD_MIOPEN_BATCHNORM_H_ */
