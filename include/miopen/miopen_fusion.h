/* Fusion plans and the one-call convolution + bias + activation (MIOpen's signatures and enums).
 * Included by miopen.h inside its extern "C" block.
 *
 * A plan is a vertical chain of operators on one input tensor; miopenCompileFusionPlan accepts
 * the chains MIOpen fuses (convolution [+ bias] [+ BN inference] [+ activation], BN inference /
 * forward training + activation, BN backward + activation backward) and rejects any other with
 * miopenStatusUnsupportedOp and a logged reason. anydnn has
 * no single fused kernel yet: a compiled plan runs its operators in sequence through the same
 * solvers as the separate calls, and says so in the log (docs/api-status.md, "Fusion"). The
 * alpha / beta arguments of the miopenSetOpArgs* calls are ignored, as MIOpen's fused kernels
 * ignore them. */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_FUSION_H_
#define MIOPEN_GUARD_MIOPEN_FUSION_H_

MIOPEN_DECLARE_OBJECT(miopenFusionOpDescriptor);
MIOPEN_DECLARE_OBJECT(miopenFusionPlanDescriptor);
MIOPEN_DECLARE_OBJECT(miopenOperatorDescriptor);
MIOPEN_DECLARE_OBJECT(miopenOperatorArgs);

typedef enum {
  miopenVerticalFusion = 0,   /* operators applied one after the other: the supported mode */
  miopenHorizontalFusion = 1, /* unimplemented, as in MIOpen */
} miopenFusionDirection_t;

MIOPEN_EXPORT miopenStatus_t miopenCreateFusionPlan(miopenFusionPlanDescriptor_t* fusePlanDesc,
                                                    const miopenFusionDirection_t fuseDirection,
                                                    const miopenTensorDescriptor_t inputDesc);
MIOPEN_EXPORT miopenStatus_t miopenDestroyFusionPlan(miopenFusionPlanDescriptor_t fusePlanDesc);
MIOPEN_EXPORT miopenStatus_t miopenCompileFusionPlan(miopenHandle_t handle,
                                                     miopenFusionPlanDescriptor_t fusePlanDesc);
MIOPEN_EXPORT miopenStatus_t miopenFusionPlanGetOp(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                   const int op_idx,
                                                   miopenFusionOpDescriptor_t* op);
/* The workspace the caller must provide: always 0 here (the sequence allocates what its
 * convolution needs), whatever the algorithm. */
MIOPEN_EXPORT miopenStatus_t
miopenFusionPlanGetWorkSpaceSize(miopenHandle_t handle, miopenFusionPlanDescriptor_t fusePlanDesc,
                                 size_t* workSpaceSize, miopenConvFwdAlgorithm_t algo);
/* The forward algorithms anydnn implements, in its order of preference (BadParm without a
 * convolution operator); whether the one set applies to the plan's convolution is decided by
 * miopenCompileFusionPlan (UnsupportedOp when it does not). */
MIOPEN_EXPORT miopenStatus_t miopenFusionPlanConvolutionGetAlgo(
    miopenFusionPlanDescriptor_t fusePlanDesc, const int requestAlgoCount, int* returnedAlgoCount,
    miopenConvFwdAlgorithm_t* returnedAlgos);
MIOPEN_EXPORT miopenStatus_t miopenFusionPlanConvolutionSetAlgo(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenConvFwdAlgorithm_t algo);

MIOPEN_EXPORT miopenStatus_t miopenCreateOpConvForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                       miopenFusionOpDescriptor_t* convOp,
                                                       miopenConvolutionDescriptor_t convDesc,
                                                       const miopenTensorDescriptor_t wDesc);
MIOPEN_EXPORT miopenStatus_t miopenCreateOpActivationForward(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* activFwdOp,
    miopenActivationMode_t mode);
MIOPEN_EXPORT miopenStatus_t miopenCreateOpActivationBackward(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* activBwdOp,
    miopenActivationMode_t mode);
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBiasForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                       miopenFusionOpDescriptor_t* biasOp,
                                                       const miopenTensorDescriptor_t bDesc);
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBatchNormInference(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* bnOp,
    const miopenBatchNormMode_t bn_mode, const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc);
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBatchNormForward(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* bnFwdOp,
    const miopenBatchNormMode_t bn_mode, bool runningMeanVariance);
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBatchNormBackward(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* bnBwdOp,
    const miopenBatchNormMode_t bn_mode);

MIOPEN_EXPORT miopenStatus_t miopenCreateOperatorArgs(miopenOperatorArgs_t* args);
MIOPEN_EXPORT miopenStatus_t miopenDestroyOperatorArgs(miopenOperatorArgs_t args);
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsConvForward(miopenOperatorArgs_t args,
                                                        const miopenFusionOpDescriptor_t convOp,
                                                        const void* alpha, const void* beta,
                                                        const void* w);
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsActivForward(
    miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t activFwdOp, const void* alpha,
    const void* beta, double activAlpha, double activBeta, double activGamma);
/* y: the activation's forward output; reserved: unused (MIOpen: should be NULL). The fused
 * backward recomputes the activation's input from the BN backward operator's x and saved
 * statistics, as MIOpen's kernel does. */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsActivBackward(
    miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t activBwdOp, const void* alpha,
    const void* beta, const void* y, const void* reserved, double activAlpha, double activBeta,
    double activGamma);
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBatchNormInference(
    miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp, const void* alpha,
    const void* beta, const void* bnScale, const void* bnBias, const void* estimatedMean,
    const void* estimatedVariance, double epsilon);
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBatchNormForward(
    miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp, const void* alpha,
    const void* beta, const void* bnScale, const void* bnBias, void* savedMean,
    void* savedInvVariance, void* runningMean, void* runningVariance, double expAvgFactor,
    double epsilon);
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBatchNormBackward(
    miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp, const void* alpha,
    const void* beta, const void* x, const void* bnScale, const void* bnBias,
    void* resultBnScaleDiff, void* resultBnBiasDiff, const void* savedMean,
    const void* savedInvVariance);
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBiasForward(miopenOperatorArgs_t args,
                                                        const miopenFusionOpDescriptor_t biasOp,
                                                        const void* alpha, const void* beta,
                                                        const void* bias);

/* Runs a compiled plan: inputDesc must be the plan's input descriptor and outputDesc the
 * descriptor its operators produce (BadParm otherwise). */
MIOPEN_EXPORT miopenStatus_t miopenExecuteFusionPlan(
    const miopenHandle_t handle, const miopenFusionPlanDescriptor_t fusePlanDesc,
    const miopenTensorDescriptor_t inputDesc, const void* input,
    const miopenTensorDescriptor_t outputDesc, void* output, miopenOperatorArgs_t args);

/* y = activation(alpha1 * conv(x, w) + alpha2 * z + bias). MIOpen accepts only alpha1 = alpha2
 * = 1 and no z; anydnn also takes other factors and z (a tensor of y's shape; NULL z with NULL
 * zDesc leaves the term out). The workspace is optional: the convolution allocates its own when
 * the one given is too small. */
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBiasActivationForward(
    miopenHandle_t handle, const void* alpha1, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, miopenConvFwdAlgorithm_t algo, void* workspace,
    size_t workspaceSizeInBytes, const void* alpha2, const miopenTensorDescriptor_t zDesc,
    const void* z, const miopenTensorDescriptor_t biasDesc, const void* bias,
    const miopenActivationDescriptor_t activationDesc, const miopenTensorDescriptor_t yDesc,
    void* y);

#endif /* MIOPEN_GUARD_MIOPEN_FUSION_H_ */
