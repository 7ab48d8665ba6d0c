// The enum arguments the C shims check, in one table: for each enum, the values MIOpen defines
// and how a bad one is reported. C callers may pass any int, and loading a value outside the
// enum as the enum type is undefined behaviour, so `checked(e)` takes the argument by reference,
// reads it raw (raw_enum) and returns it as the enum, or throws BadParm with the table's message:
//   "<label> <v>"                     (no type: "invalid LRN mode 7")
//   "<label> <v> is not a <type>"     ("rng_mode 3 is not a miopenRNGType_t")
// A new enum argument adds one ANYDNN_ENUM_TABLE line here.
#pragma once

#include <miopen/miopen.h>

#include "api/api_log.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn::api {

template <class E>
struct EnumTable;

#define ANYDNN_ENUM_TABLE(E, LABEL, TYPE, ...)                   \
  template <>                                                    \
  struct EnumTable<E> {                                          \
    static constexpr long long kValues[] = {__VA_ARGS__};        \
    static constexpr const char* kLabel = LABEL;                 \
    static constexpr const char* kType = TYPE; /* may be null */ \
  }

ANYDNN_ENUM_TABLE(miopenBatchNormMode_t, "bn_mode", "miopenBatchNormMode_t", miopenBNSpatial,
                  miopenBNPerActivation);
ANYDNN_ENUM_TABLE(miopenActivationMode_t, "invalid activation mode", nullptr,
                  miopenActivationPASTHRU, miopenActivationLOGISTIC, miopenActivationTANH,
                  miopenActivationRELU, miopenActivationSOFTRELU, miopenActivationABS,
                  miopenActivationPOWER, miopenActivationCLIPPEDRELU, miopenActivationLEAKYRELU,
                  miopenActivationELU);
ANYDNN_ENUM_TABLE(miopenSoftmaxAlgorithm_t, "invalid softmax algorithm", nullptr,
                  MIOPEN_SOFTMAX_FAST, MIOPEN_SOFTMAX_ACCURATE, MIOPEN_SOFTMAX_LOG);
ANYDNN_ENUM_TABLE(miopenSoftmaxMode_t, "invalid softmax mode", nullptr,
                  MIOPEN_SOFTMAX_MODE_INSTANCE, MIOPEN_SOFTMAX_MODE_CHANNEL);
ANYDNN_ENUM_TABLE(miopenLRNMode_t, "invalid LRN mode", nullptr, miopenLRNWithinChannel,
                  miopenLRNCrossChannel);
ANYDNN_ENUM_TABLE(miopenPoolingMode_t, "invalid pooling mode", nullptr, miopenPoolingMax,
                  miopenPoolingAverage, miopenPoolingAverageInclusive);
ANYDNN_ENUM_TABLE(miopenIndexType_t, "invalid index type", nullptr, miopenIndexUint8,
                  miopenIndexUint16, miopenIndexUint32, miopenIndexUint64);
ANYDNN_ENUM_TABLE(miopenPoolingWorkspaceIndexMode_t, "invalid workspace index mode", nullptr,
                  miopenPoolingWorkspaceIndexMask, miopenPoolingWorkspaceIndexImage);
ANYDNN_ENUM_TABLE(miopenCTCLossAlgo_t, "invalid CTC loss algorithm", nullptr,
                  MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC);
ANYDNN_ENUM_TABLE(miopenRNGType_t, "rng_mode", "miopenRNGType_t", MIOPEN_RNG_PSEUDO_XORWOW);
ANYDNN_ENUM_TABLE(miopenProblemDirection_t, "direction", "miopenProblemDirection_t",
                  miopenProblemDirectionForward, miopenProblemDirectionBackward,
                  miopenProblemDirectionBackwardWeights, miopenProblemDirectionInference);
ANYDNN_ENUM_TABLE(miopenFindResultsOrder_t, "results order", "miopenFindResultsOrder_t",
                  miopenFindResultsOrderByTime, miopenFindResultsOrderByWorkspaceSize);
ANYDNN_ENUM_TABLE(miopenConvFwdAlgorithm_t, "algo", "miopenConvFwdAlgorithm_t",
                  miopenConvolutionFwdAlgoGEMM, miopenConvolutionFwdAlgoDirect,
                  miopenConvolutionFwdAlgoFFT, miopenConvolutionFwdAlgoWinograd,
                  miopenConvolutionFwdAlgoImplicitGEMM);
ANYDNN_ENUM_TABLE(miopenFusionDirection_t, "fuseDirection", "miopenFusionDirection_t",
                  miopenVerticalFusion, miopenHorizontalFusion);
ANYDNN_ENUM_TABLE(miopenRNNFWDMode_t, "fwdMode", "miopenRNNFWDMode_t", miopenRNNTraining,
                  miopenRNNInference);
ANYDNN_ENUM_TABLE(miopenTensorOp_t, "tensorOp", "miopenTensorOp_t", miopenTensorOpAdd,
                  miopenTensorOpMul, miopenTensorOpMin, miopenTensorOpMax);

#undef ANYDNN_ENUM_TABLE

template <class E>
E checked(const E& e) {
  using T = EnumTable<E>;
  const long long v = raw_enum(e);
  for (const long long ok : T::kValues)
    if (v == ok) return static_cast<E>(v);
  if (T::kType == nullptr) ANYDNN_THROW(miopenStatusBadParm, T::kLabel << " " << v);
  ANYDNN_THROW(miopenStatusBadParm, T::kLabel << " " << v << " is not a " << T::kType);
}

// Data types: every value core/data_type.hpp knows (a wider rule than one list).
inline miopenDataType_t valid_data_type(const miopenDataType_t& t) {
  const long long v = raw_enum(t);
  ANYDNN_CHECK_BADPARM(is_valid_data_type(v), "invalid data type " << v);
  return static_cast<miopenDataType_t>(v);
}

}  // namespace anydnn::api
