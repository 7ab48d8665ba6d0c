// C API: batch normalization (MIOpen's seed 003). The V1 calls pass one descriptor for every
// per-channel tensor; they forward to the same implementation as the V2 calls with that
// descriptor in each role. Semantics: docs/api-status.md and src/backend/cpu/bn/bn_util.hpp.
#include <miopen/miopen.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/conv_call.hpp"
#include "api/enum_args.hpp"
#include "bn/bn_ops.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

struct ParamDescs {
  miopenTensorDescriptor_t scale, bias, mean, var;
};

BnDescriptors descriptors(miopenTensorDescriptor_t x, const char* y_name,
                          miopenTensorDescriptor_t y, miopenTensorDescriptor_t dx,
                          const ParamDescs& pd) {
  BnDescriptors d;
  d.x = &deref_set(x, "xDesc");
  d.y = &deref_set(y, y_name);
  if (dx != nullptr) d.dx = &deref_set(dx, "dxDesc");
  d.scale = &deref_set(pd.scale, "scaleDesc");
  d.bias = &deref_set(pd.bias, "biasDesc");
  d.mean = &deref_set(pd.mean, "meanDesc");
  d.var = &deref_set(pd.var, "varianceDesc");
  return d;
}

void require(const void* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
}

// MIOpen uses an optional pair only when both pointers are set; say so when only one is.
bool pair_set(const Config& cfg, const void* a, const void* b, const char* what) {
  if ((a == nullptr) != (b == nullptr))
    ANYDNN_LOG_W(cfg, "only one of the " << what << " pointers is set: both are ignored");
  return a != nullptr && b != nullptr;
}

// The buffers both forward calls share: alpha / beta, data and the scale / bias pair.
BnBuffers forward_buffers(const void* alpha, const void* beta, const void* x, void* y,
                          const void* scale, const void* bias) {
  BnBuffers b;
  b.alpha = read_scale(alpha, "alpha");
  b.beta = read_scale(beta, "beta");
  require(x, "x");
  require(y, "y");
  require(scale, "bnScale");
  require(bias, "bnBias");
  b.x = x;
  b.y = y;
  b.scale = scale;
  b.bias = bias;
  return b;
}

void log_bn_command(const Config& cfg, const BnProblem& p) {
  if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdBNorm", p.key());
}

miopenStatus_t forward_training(const char* fn, miopenHandle_t handle,
                                const miopenBatchNormMode_t& mode, const void* alpha,
                                const void* beta, miopenTensorDescriptor_t xDesc, const void* x,
                                miopenTensorDescriptor_t yDesc, void* y, const ParamDescs& pd,
                                const void* scale, const void* bias, double factor, void* run_mean,
                                void* run_var, double epsilon, void* save_mean, void* save_invvar) {
  const Config& cfg = config_of(handle);
  return guard(cfg, fn, [&] {
    Handle& h = deref(handle);
    const bool running = pair_set(cfg, run_mean, run_var, "running mean / variance");
    const bool save = pair_set(cfg, save_mean, save_invvar, "saved mean / inverse variance");
    const BnProblem p(BnDirection::ForwardTraining, checked(mode),
                      descriptors(xDesc, "yDesc", yDesc, nullptr, pd), epsilon, factor, save,
                      running);
    log_bn_command(cfg, p);
    BnBuffers b = forward_buffers(alpha, beta, x, y, scale, bias);
    if (running) {
      b.run_mean = run_mean;
      b.run_var = run_var;
    }
    if (save) {
      b.saved_mean = save_mean;
      b.saved_invstd = save_invvar;
    }
    bn_run(h, p, b);
  });
}

miopenStatus_t forward_inference(const char* fn, miopenHandle_t handle,
                                 const miopenBatchNormMode_t& mode, const void* alpha,
                                 const void* beta, miopenTensorDescriptor_t xDesc, const void* x,
                                 miopenTensorDescriptor_t yDesc, void* y, const ParamDescs& pd,
                                 const void* scale, const void* bias, const void* est_mean,
                                 const void* est_var, double epsilon) {
  const Config& cfg = config_of(handle);
  return guard(cfg, fn, [&] {
    Handle& h = deref(handle);
    // Without both estimates MIOpen normalises with the batch's own statistics.
    const bool estimates = est_mean != nullptr && est_var != nullptr;
    const BnProblem p(BnDirection::ForwardInference, checked(mode),
                      descriptors(xDesc, "yDesc", yDesc, nullptr, pd), epsilon, 0.0, false,
                      estimates);
    log_bn_command(cfg, p);
    BnBuffers b = forward_buffers(alpha, beta, x, y, scale, bias);
    if (estimates) {
      b.run_mean = const_cast<void*>(est_mean);
      b.run_var = const_cast<void*>(est_var);
    }
    bn_run(h, p, b);
  });
}

miopenStatus_t backward(const char* fn, miopenHandle_t handle, const miopenBatchNormMode_t& mode,
                        const void* alpha_data, const void* beta_data, const void* alpha_param,
                        const void* beta_param, miopenTensorDescriptor_t xDesc, const void* x,
                        miopenTensorDescriptor_t dyDesc, const void* dy,
                        miopenTensorDescriptor_t dxDesc, void* dx, const ParamDescs& pd,
                        const void* scale, void* dscale, void* dbias, double epsilon,
                        const void* saved_mean, const void* saved_invvar) {
  const Config& cfg = config_of(handle);
  return guard(cfg, fn, [&] {
    Handle& h = deref(handle);
    const bool saved = pair_set(cfg, saved_mean, saved_invvar, "saved mean / inverse variance");
    const BnProblem p(BnDirection::Backward, checked(mode),
                      descriptors(xDesc, "dyDesc", dyDesc, dxDesc, pd), epsilon, 0.0, saved, false);
    log_bn_command(cfg, p);
    BnBuffers b;
    b.alpha = read_scale(alpha_data, "alphaDataDiff");
    b.beta = read_scale(beta_data, "betaDataDiff");
    b.alpha_param = read_scale(alpha_param, "alphaParamDiff");
    b.beta_param = read_scale(beta_param, "betaParamDiff");
    require(x, "x");
    require(dy, "dy");
    require(dx, "dx");
    require(scale, "bnScale");
    require(dscale, "resultBnScaleDiff");
    require(dbias, "resultBnBiasDiff");
    b.x = x;
    b.dy = dy;
    b.dx = dx;
    b.scale = scale;
    b.dscale = dscale;
    b.dbias = dbias;
    if (saved) {
      b.saved_mean = const_cast<void*>(saved_mean);
      b.saved_invstd = const_cast<void*>(saved_invvar);
    }
    bn_run(h, p, b);
  });
}

}  // namespace

extern "C" miopenStatus_t miopenDeriveBNTensorDescriptor(miopenTensorDescriptor_t derivedBnDesc,
                                                         const miopenTensorDescriptor_t xDesc,
                                                         miopenBatchNormMode_t bn_mode) {
  const Config& cfg = config_of(nullptr);
  ANYDNN_LOG_API(cfg, derivedBnDesc, xDesc, bn_mode);
  return guard(cfg, __func__, [&] {
    TensorDescriptor& out = deref(derivedBnDesc, "derivedBnDesc");
    out = derive_bn_descriptor(deref_set(xDesc, "xDesc"), checked(bn_mode));
  });
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardTraining(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc, void* bnScale, void* bnBias,
    double expAvgFactor, void* resultRunningMean, void* resultRunningVariance, double epsilon,
    void* resultSaveMean, void* resultSaveInvVariance) {
  ANYDNN_LOG_API(config_of(handle), handle, bn_mode, alpha, beta, xDesc, x, yDesc, y,
                 bnScaleBiasMeanVarDesc, bnScale, bnBias, expAvgFactor, resultRunningMean,
                 resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance);
  const auto d = bnScaleBiasMeanVarDesc;
  return forward_training(__func__, handle, bn_mode, alpha, beta, xDesc, x, yDesc, y, {d, d, d, d},
                          bnScale, bnBias, expAvgFactor, resultRunningMean, resultRunningVariance,
                          epsilon, resultSaveMean, resultSaveInvVariance);
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardTraining_V2(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t scaleDesc, const miopenTensorDescriptor_t biasVarDesc,
    const miopenTensorDescriptor_t savedMeanDesc, const miopenTensorDescriptor_t savedVarDesc,
    void* bnScale, void* bnBias, double expAvgFactor, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean,
    void* resultSaveInvVariance) {
  ANYDNN_LOG_API(config_of(handle), handle, bn_mode, alpha, beta, xDesc, x, yDesc, y, scaleDesc,
                 biasVarDesc, savedMeanDesc, savedVarDesc, bnScale, bnBias, expAvgFactor,
                 resultRunningMean, resultRunningVariance, epsilon, resultSaveMean,
                 resultSaveInvVariance);
  return forward_training(__func__, handle, bn_mode, alpha, beta, xDesc, x, yDesc, y,
                          {scaleDesc, biasVarDesc, savedMeanDesc, savedVarDesc}, bnScale, bnBias,
                          expAvgFactor, resultRunningMean, resultRunningVariance, epsilon,
                          resultSaveMean, resultSaveInvVariance);
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardInference(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc, void* bnScale, void* bnBias,
    void* estimatedMean, void* estimatedVariance, double epsilon) {
  ANYDNN_LOG_API(config_of(handle), handle, bn_mode, alpha, beta, xDesc, x, yDesc, y,
                 bnScaleBiasMeanVarDesc, bnScale, bnBias, estimatedMean, estimatedVariance,
                 epsilon);
  const auto d = bnScaleBiasMeanVarDesc;
  return forward_inference(__func__, handle, bn_mode, alpha, beta, xDesc, x, yDesc, y, {d, d, d, d},
                           bnScale, bnBias, estimatedMean, estimatedVariance, epsilon);
}

extern "C" miopenStatus_t miopenBatchNormalizationForwardInference_V2(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, void* alpha, void* beta,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t yDesc,
    void* y, const miopenTensorDescriptor_t scaleDesc, const miopenTensorDescriptor_t biasDesc,
    const miopenTensorDescriptor_t estMeanDesc, const miopenTensorDescriptor_t estVarianceDesc,
    void* bnScale, void* bnBias, void* estimatedMean, void* estimatedVariance, double epsilon) {
  ANYDNN_LOG_API(config_of(handle), handle, bn_mode, alpha, beta, xDesc, x, yDesc, y, scaleDesc,
                 biasDesc, estMeanDesc, estVarianceDesc, bnScale, bnBias, estimatedMean,
                 estimatedVariance, epsilon);
  return forward_inference(__func__, handle, bn_mode, alpha, beta, xDesc, x, yDesc, y,
                           {scaleDesc, biasDesc, estMeanDesc, estVarianceDesc}, bnScale, bnBias,
                           estimatedMean, estimatedVariance, epsilon);
}

extern "C" miopenStatus_t miopenBatchNormalizationBackward(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, const void* alphaDataDiff,
    const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t dxDesc, void* dx,
    const miopenTensorDescriptor_t bnScaleBiasDiffDesc, const void* bnScale,
    void* resultBnScaleDiff, void* resultBnBiasDiff, double epsilon, const void* savedMean,
    const void* savedInvVariance) {
  ANYDNN_LOG_API(config_of(handle), handle, bn_mode, alphaDataDiff, betaDataDiff, alphaParamDiff,
                 betaParamDiff, xDesc, x, dyDesc, dy, dxDesc, dx, bnScaleBiasDiffDesc, bnScale,
                 resultBnScaleDiff, resultBnBiasDiff, epsilon, savedMean, savedInvVariance);
  const auto d = bnScaleBiasDiffDesc;
  return backward(__func__, handle, bn_mode, alphaDataDiff, betaDataDiff, alphaParamDiff,
                  betaParamDiff, xDesc, x, dyDesc, dy, dxDesc, dx, {d, d, d, d}, bnScale,
                  resultBnScaleDiff, resultBnBiasDiff, epsilon, savedMean, savedInvVariance);
}

extern "C" miopenStatus_t miopenBatchNormalizationBackward_V2(
    miopenHandle_t handle, miopenBatchNormMode_t bn_mode, const void* alphaDataDiff,
    const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const miopenTensorDescriptor_t xDesc, const void* x, const miopenTensorDescriptor_t dyDesc,
    const void* dy, const miopenTensorDescriptor_t dxDesc, void* dx,
    const miopenTensorDescriptor_t scaleDesc, const miopenTensorDescriptor_t biasDesc,
    const miopenTensorDescriptor_t savedMeanDesc, const miopenTensorDescriptor_t savedVarDesc,
    const void* bnScale, void* resultBnScaleDiff, void* resultBnBiasDiff, double epsilon,
    const void* savedMean, const void* savedInvVariance) {
  ANYDNN_LOG_API(config_of(handle), handle, bn_mode, alphaDataDiff, betaDataDiff, alphaParamDiff,
                 betaParamDiff, xDesc, x, dyDesc, dy, dxDesc, dx, scaleDesc, biasDesc,
                 savedMeanDesc, savedVarDesc, bnScale, resultBnScaleDiff, resultBnBiasDiff, epsilon,
                 savedMean, savedInvVariance);
  return backward(__func__, handle, bn_mode, alphaDataDiff, betaDataDiff, alphaParamDiff,
                  betaParamDiff, xDesc, x, dyDesc, dy, dxDesc, dx,
                  {scaleDesc, biasDesc, savedMeanDesc, savedVarDesc}, bnScale, resultBnScaleDiff,
                  resultBnBiasDiff, epsilon, savedMean, savedInvVariance);
}
