// C API: fusion plans (MIOpen's fusion API) and miopenConvolutionBiasActivationForward. The
// shims check every argument (null pointers, enum values, an operator handle of the kind the call
// needs) and hand the plan to fusion/fusion_plan.hpp, which checks the chain at compile time,
// chooses a fusion solver (fused kernels, or the operators in sequence) and runs it.
// Semantics: docs/api-status.md, "Fusion".
#include <miopen/miopen.h>

#include <algorithm>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/enum_args.hpp"
#include "fusion/fusion_plan.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

// Appends `op` to the plan and hands out its handle; the out-pointer is checked first, so a
// failed call adds nothing.
void add_op(miopenFusionPlanDescriptor_t plan, miopenFusionOpDescriptor_t* out, const char* name,
            FusionOp op) {
  auto& handle_out = deref_out(out, name);
  FusionPlanObject& p = deref(plan);
  FusionOp& added = p.plan.add(std::move(op));
  p.ops.push_back(std::make_unique<FusionOpObject>(added));
  handle_out = p.ops.back().get();
}

// The operator behind a miopenSetOpArgs* call's handle, which must be of `kind`.
FusionOp& op_of(miopenFusionOpDescriptor_t o, const char* name, FusionOpKind kind) {
  FusionOp& op = deref(o, name);
  ANYDNN_CHECK_BADPARM(op.kind == kind, name << " is a " << fusion_op_name(op.kind)
                                             << " operator, not " << fusion_op_name(kind));
  return op;
}

}  // namespace

extern "C" miopenStatus_t miopenCreateFusionPlan(miopenFusionPlanDescriptor_t* fusePlanDesc,
                                                 const miopenFusionDirection_t fuseDirection,
                                                 const miopenTensorDescriptor_t inputDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, fuseDirection, inputDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(fusePlanDesc, "fusePlanDesc");
    const miopenFusionDirection_t dir = checked(fuseDirection);
    out = new FusionPlanObject(FusionPlan(dir, deref_set(inputDesc, "inputDesc")));
  });
}

extern "C" miopenStatus_t miopenDestroyFusionPlan(miopenFusionPlanDescriptor_t fusePlanDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc);
  return guard(cfg, __func__, [&] { delete &deref(fusePlanDesc); });
}

extern "C" miopenStatus_t miopenCompileFusionPlan(miopenHandle_t handle,
                                                  miopenFusionPlanDescriptor_t fusePlanDesc) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, fusePlanDesc);
  return guard(cfg, __func__, [&] { deref(fusePlanDesc).plan.compile(deref(handle)); });
}

extern "C" miopenStatus_t miopenFusionPlanGetOp(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                const int op_idx, miopenFusionOpDescriptor_t* op) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, op_idx, op);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(op, "op");
    FusionPlanObject& p = deref(fusePlanDesc);
    p.plan.op(op_idx);  // the bounds check
    out = p.ops[static_cast<size_t>(op_idx)].get();
  });
}

extern "C" miopenStatus_t miopenFusionPlanGetWorkSpaceSize(
    miopenHandle_t handle, miopenFusionPlanDescriptor_t fusePlanDesc, size_t* workSpaceSize,
    miopenConvFwdAlgorithm_t algo) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, fusePlanDesc, workSpaceSize, algo);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    FusionPlan& plan = deref(fusePlanDesc).plan;
    checked(algo);  // ignored, as in MIOpen: the plan's algorithm (SetAlgo) decides
    auto& out = deref_out(workSpaceSize, "workSpaceSize");
    // What the chosen fusion solver needs (the plan keeps its own: execute takes none).
    out = plan.workspace_size(h);
  });
}

extern "C" miopenStatus_t miopenFusionPlanConvolutionGetAlgo(
    miopenFusionPlanDescriptor_t fusePlanDesc, const int requestAlgoCount, int* returnedAlgoCount,
    miopenConvFwdAlgorithm_t* returnedAlgos) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, requestAlgoCount, returnedAlgoCount, returnedAlgos);
  return guard(cfg, __func__, [&] {
    auto& count = deref_out(returnedAlgoCount, "returnedAlgoCount");
    ANYDNN_CHECK_BADPARM(requestAlgoCount >= 0,
                         "requestAlgoCount = " << requestAlgoCount << " must be >= 0");
    const auto algos = deref(fusePlanDesc).plan.conv_algorithms();
    const int n = std::min(requestAlgoCount, static_cast<int>(algos.size()));
    ANYDNN_CHECK_BADPARM(n == 0 || returnedAlgos != nullptr, "returnedAlgos is a null pointer");
    std::copy_n(algos.begin(), n, returnedAlgos);
    count = n;
  });
}

extern "C" miopenStatus_t miopenFusionPlanConvolutionSetAlgo(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenConvFwdAlgorithm_t algo) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, algo);
  return guard(cfg, __func__, [&] { deref(fusePlanDesc).plan.set_conv_algorithm(checked(algo)); });
}

extern "C" miopenStatus_t miopenCreateOpConvForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                    miopenFusionOpDescriptor_t* convOp,
                                                    miopenConvolutionDescriptor_t convDesc,
                                                    const miopenTensorDescriptor_t wDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, convOp, convDesc, wDesc);
  return guard(cfg, __func__, [&] {
    FusionOp op;
    op.kind = FusionOpKind::ConvForward;
    op.conv = deref(convDesc, "convDesc");
    op.w = deref_set(wDesc, "wDesc");
    add_op(fusePlanDesc, convOp, "convOp", std::move(op));
  });
}

extern "C" miopenStatus_t miopenCreateOpActivationForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                          miopenFusionOpDescriptor_t* activFwdOp,
                                                          miopenActivationMode_t mode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, activFwdOp, mode);
  return guard(cfg, __func__, [&] {
    FusionOp op;
    op.kind = FusionOpKind::ActivForward;
    op.activ_mode = checked(mode);
    add_op(fusePlanDesc, activFwdOp, "activFwdOp", std::move(op));
  });
}

extern "C" miopenStatus_t miopenCreateOpActivationBackward(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* activBwdOp,
    miopenActivationMode_t mode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, activBwdOp, mode);
  return guard(cfg, __func__, [&] {
    FusionOp op;
    op.kind = FusionOpKind::ActivBackward;
    op.activ_mode = checked(mode);
    add_op(fusePlanDesc, activBwdOp, "activBwdOp", std::move(op));
  });
}

extern "C" miopenStatus_t miopenCreateOpBiasForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                    miopenFusionOpDescriptor_t* biasOp,
                                                    const miopenTensorDescriptor_t bDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, biasOp, bDesc);
  return guard(cfg, __func__, [&] {
    FusionOp op;
    op.kind = FusionOpKind::BiasForward;
    op.param = deref_set(bDesc, "bDesc");
    add_op(fusePlanDesc, biasOp, "biasOp", std::move(op));
  });
}

extern "C" miopenStatus_t miopenCreateOpBatchNormInference(
    miopenFusionPlanDescriptor_t fusePlanDesc, miopenFusionOpDescriptor_t* bnOp,
    const miopenBatchNormMode_t bn_mode, const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, bnOp, bn_mode, bnScaleBiasMeanVarDesc);
  return guard(cfg, __func__, [&] {
    FusionOp op;
    op.kind = FusionOpKind::BnInference;
    op.bn_mode = checked(bn_mode);
    op.param = deref_set(bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc");
    add_op(fusePlanDesc, bnOp, "bnOp", std::move(op));
  });
}

extern "C" miopenStatus_t miopenCreateOpBatchNormForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                         miopenFusionOpDescriptor_t* bnFwdOp,
                                                         const miopenBatchNormMode_t bn_mode,
                                                         bool runningMeanVariance) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, bnFwdOp, bn_mode, runningMeanVariance);
  return guard(cfg, __func__, [&] {
    FusionOp op;
    op.kind = FusionOpKind::BnForwardTraining;
    op.bn_mode = checked(bn_mode);
    op.running = runningMeanVariance;
    add_op(fusePlanDesc, bnFwdOp, "bnFwdOp", std::move(op));
  });
}

extern "C" miopenStatus_t miopenCreateOpBatchNormBackward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                          miopenFusionOpDescriptor_t* bnBwdOp,
                                                          const miopenBatchNormMode_t bn_mode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, fusePlanDesc, bnBwdOp, bn_mode);
  return guard(cfg, __func__, [&] {
    FusionOp op;
    op.kind = FusionOpKind::BnBackward;
    op.bn_mode = checked(bn_mode);
    add_op(fusePlanDesc, bnBwdOp, "bnBwdOp", std::move(op));
  });
}

extern "C" miopenStatus_t miopenCreateOperatorArgs(miopenOperatorArgs_t* args) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(args, "args");
    out = new OperatorArgsObject();
  });
}

extern "C" miopenStatus_t miopenDestroyOperatorArgs(miopenOperatorArgs_t args) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args);
  return guard(cfg, __func__, [&] {
    deref(args);
    delete static_cast<OperatorArgsObject*>(args);
  });
}

extern "C" miopenStatus_t miopenSetOpArgsConvForward(miopenOperatorArgs_t args,
                                                     const miopenFusionOpDescriptor_t convOp,
                                                     const void* alpha, const void* beta,
                                                     const void* w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args, convOp, alpha, beta, w);
  return guard(cfg, __func__, [&] {
    OperatorArgs& a = deref(args);
    const FusionOp& op = op_of(convOp, "convOp", FusionOpKind::ConvForward);
    ANYDNN_CHECK_BADPARM(w != nullptr, "w is a null pointer");
    a.of(op).w = w;
  });
}

extern "C" miopenStatus_t miopenSetOpArgsActivForward(miopenOperatorArgs_t args,
                                                      const miopenFusionOpDescriptor_t activFwdOp,
                                                      const void* alpha, const void* beta,
                                                      double activAlpha, double activBeta,
                                                      double activGamma) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args, activFwdOp, alpha, beta, activAlpha, activBeta, activGamma);
  return guard(cfg, __func__, [&] {
    OperatorArgs& a = deref(args);
    FusionOpArgs& o = a.of(op_of(activFwdOp, "activFwdOp", FusionOpKind::ActivForward));
    o.activ_alpha = activAlpha;
    o.activ_beta = activBeta;
    o.activ_gamma = activGamma;
  });
}

extern "C" miopenStatus_t miopenSetOpArgsActivBackward(miopenOperatorArgs_t args,
                                                       const miopenFusionOpDescriptor_t activBwdOp,
                                                       const void* alpha, const void* beta,
                                                       const void* y, const void* reserved,
                                                       double activAlpha, double activBeta,
                                                       double activGamma) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args, activBwdOp, alpha, beta, y, reserved, activAlpha, activBeta,
                 activGamma);
  return guard(cfg, __func__, [&] {
    OperatorArgs& a = deref(args);
    // y is not needed: the fused backward recomputes the activation from the BN operator's x.
    FusionOpArgs& o = a.of(op_of(activBwdOp, "activBwdOp", FusionOpKind::ActivBackward));
    o.activ_alpha = activAlpha;
    o.activ_beta = activBeta;
    o.activ_gamma = activGamma;
  });
}

extern "C" miopenStatus_t miopenSetOpArgsBatchNormInference(
    miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp, const void* alpha,
    const void* beta, const void* bnScale, const void* bnBias, const void* estimatedMean,
    const void* estimatedVariance, double epsilon) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args, bnOp, alpha, beta, bnScale, bnBias, estimatedMean, estimatedVariance,
                 epsilon);
  return guard(cfg, __func__, [&] {
    OperatorArgs& a = deref(args);
    FusionOpArgs& o = a.of(op_of(bnOp, "bnOp", FusionOpKind::BnInference));
    o.scale = bnScale;
    o.shift = bnBias;
    o.mean = estimatedMean;
    o.var = estimatedVariance;
    o.epsilon = epsilon;
  });
}

extern "C" miopenStatus_t miopenSetOpArgsBatchNormForward(miopenOperatorArgs_t args,
                                                          const miopenFusionOpDescriptor_t bnOp,
                                                          const void* alpha, const void* beta,
                                                          const void* bnScale, const void* bnBias,
                                                          void* savedMean, void* savedInvVariance,
                                                          void* runningMean, void* runningVariance,
                                                          double expAvgFactor, double epsilon) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args, bnOp, alpha, beta, bnScale, bnBias, savedMean, savedInvVariance,
                 runningMean, runningVariance, expAvgFactor, epsilon);
  return guard(cfg, __func__, [&] {
    OperatorArgs& a = deref(args);
    FusionOpArgs& o = a.of(op_of(bnOp, "bnOp", FusionOpKind::BnForwardTraining));
    o.scale = bnScale;
    o.shift = bnBias;
    o.saved_mean = savedMean;
    o.saved_invvar = savedInvVariance;
    o.run_mean = runningMean;
    o.run_var = runningVariance;
    o.exp_avg_factor = expAvgFactor;
    o.epsilon = epsilon;
  });
}

extern "C" miopenStatus_t miopenSetOpArgsBatchNormBackward(
    miopenOperatorArgs_t args, const miopenFusionOpDescriptor_t bnOp, const void* alpha,
    const void* beta, const void* x, const void* bnScale, const void* bnBias,
    void* resultBnScaleDiff, void* resultBnBiasDiff, const void* savedMean,
    const void* savedInvVariance) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args, bnOp, alpha, beta, x, bnScale, bnBias, resultBnScaleDiff,
                 resultBnBiasDiff, savedMean, savedInvVariance);
  return guard(cfg, __func__, [&] {
    OperatorArgs& a = deref(args);
    FusionOpArgs& o = a.of(op_of(bnOp, "bnOp", FusionOpKind::BnBackward));
    o.x = x;
    o.scale = bnScale;
    o.shift = bnBias;
    o.dscale = resultBnScaleDiff;
    o.dbias = resultBnBiasDiff;
    o.mean = savedMean;
    o.var = savedInvVariance;
  });
}

extern "C" miopenStatus_t miopenSetOpArgsBiasForward(miopenOperatorArgs_t args,
                                                     const miopenFusionOpDescriptor_t biasOp,
                                                     const void* alpha, const void* beta,
                                                     const void* bias) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, args, biasOp, alpha, beta, bias);
  return guard(cfg, __func__, [&] {
    OperatorArgs& a = deref(args);
    const FusionOp& op = op_of(biasOp, "biasOp", FusionOpKind::BiasForward);
    ANYDNN_CHECK_BADPARM(bias != nullptr, "bias is a null pointer");
    a.of(op).bias = bias;
  });
}

extern "C" miopenStatus_t miopenExecuteFusionPlan(const miopenHandle_t handle,
                                                  const miopenFusionPlanDescriptor_t fusePlanDesc,
                                                  const miopenTensorDescriptor_t inputDesc,
                                                  const void* input,
                                                  const miopenTensorDescriptor_t outputDesc,
                                                  void* output, miopenOperatorArgs_t args) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, fusePlanDesc, inputDesc, input, outputDesc, output, args);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    FusionPlan& plan = deref(fusePlanDesc).plan;
    // MIOpen's LogCmdFusion, before each execution of a compiled plan.
    if (cfg.log_driver_commands && plan.compiled())
      log_driver_command(cfg, "LogCmdFusion", plan.key());
    plan.execute(h, deref_set(inputDesc, "inputDesc"), input, deref_set(outputDesc, "outputDesc"),
                 output, deref(args));
  });
}

extern "C" miopenStatus_t miopenConvolutionBiasActivationForward(
    miopenHandle_t handle, const void* alpha1, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w,
    const miopenConvolutionDescriptor_t convDesc, miopenConvFwdAlgorithm_t algo, void* workspace,
    size_t workspaceSizeInBytes, const void* alpha2, const miopenTensorDescriptor_t zDesc,
    const void* z, const miopenTensorDescriptor_t biasDesc, const void* bias,
    const miopenActivationDescriptor_t activationDesc, const miopenTensorDescriptor_t yDesc,
    void* y) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, alpha1, xDesc, x, wDesc, w, convDesc, algo, workspace,
                 workspaceSizeInBytes, alpha2, zDesc, z, biasDesc, bias, activationDesc, yDesc, y);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    ConvBiasActivArgs a;
    // Null factors are 1, as in MIOpen (which accepts no other value).
    a.alpha1 = alpha1 ? *static_cast<const float*>(alpha1) : 1.0f;
    a.alpha2 = alpha2 ? *static_cast<const float*>(alpha2) : 1.0f;
    a.x_desc = &deref_set(xDesc, "xDesc");
    a.x = x;
    a.w_desc = &deref_set(wDesc, "wDesc");
    a.w = w;
    a.conv = &deref(convDesc, "convDesc");
    a.algo = checked(algo);
    ANYDNN_CHECK_BADPARM(workspace != nullptr || workspaceSizeInBytes == 0,
                         "workspace is null but workspaceSizeInBytes is " << workspaceSizeInBytes);
    a.workspace = workspace;
    a.workspace_size = workspaceSizeInBytes;
    const TensorDescriptor* zd = zDesc ? &deref(zDesc, "zDesc") : nullptr;
    a.z_desc = zd && zd->is_set() ? zd : nullptr;
    a.z = z;
    a.bias_desc = &deref_set(biasDesc, "biasDesc");
    a.bias = bias;
    a.activation = deref(activationDesc, "activationDesc");
    a.y_desc = &deref_set(yDesc, "yDesc");
    a.y = y;
    conv_bias_activation_forward(h, a);
  });
}
