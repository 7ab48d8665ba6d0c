/* CTC loss (MIOpen's signatures and enums). Included by miopen.h inside its extern "C" block. */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_CTC_H_
#define MIOPEN_GUARD_MIOPEN_CTC_H_

MIOPEN_DECLARE_OBJECT(miopenCTCLossDescriptor);

typedef enum {
  MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC = 0, /* results are reproducible */
} miopenCTCLossAlgo_t;

/* A new descriptor is float, blank label 0, softmax applied (MIOpen's defaults). */
MIOPEN_EXPORT miopenStatus_t miopenCreateCTCLossDescriptor(miopenCTCLossDescriptor_t* ctcLossDesc);
/* blank_label_id and apply_softmax_layer may be null (MIOpen skips them then). */
MIOPEN_EXPORT miopenStatus_t miopenGetCTCLossDescriptor(miopenCTCLossDescriptor_t ctcLossDesc,
                                                        miopenDataType_t* dataType,
                                                        int* blank_label_id,
                                                        bool* apply_softmax_layer);
MIOPEN_EXPORT miopenStatus_t miopenDestroyCTCLossDescriptor(miopenCTCLossDescriptor_t ctcLossDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetCTCLossDescriptor(miopenCTCLossDescriptor_t ctcLossDesc,
                                                        miopenDataType_t dataType,
                                                        const int blank_label_id,
                                                        bool apply_softmax_layer);

/* probsDesc / gradientsDesc: [max time step, batch, classes]; labels (concatenated),
 * labelLengths and inputLengths (one per batch element) are host arrays. */
MIOPEN_EXPORT miopenStatus_t miopenGetCTCLossWorkspaceSize(
    miopenHandle_t handle, const miopenTensorDescriptor_t probsDesc,
    const miopenTensorDescriptor_t gradientsDesc, const int* labels, const int* labelLengths,
    const int* inputLengths, miopenCTCLossAlgo_t algo, const miopenCTCLossDescriptor_t ctcLossDesc,
    size_t* workSpaceSize);

/* losses: one negative log likelihood per batch element; gradients shaped like probs. */
MIOPEN_EXPORT miopenStatus_t miopenCTCLoss(
    miopenHandle_t handle, const miopenTensorDescriptor_t probsDesc, const void* probs,
    const int* labels, const int* labelLengths, const int* inputLengths, void* losses,
    const miopenTensorDescriptor_t gradientsDesc, void* gradients, miopenCTCLossAlgo_t algo,
    const miopenCTCLossDescriptor_t ctcLossDesc, void* workSpace, size_t workSpaceSize);

#endif /* MIOPEN_GUARD_MIOPEN_CTC_H_ */
