/* Links the installed libMIOpen through find_package(miopen) and makes real calls: the version,
   a handle, activation, softmax, LRN and pooling forward / backward, a reduction with indices,
   CTC loss and PyTorch's fused conv + bias + ReLU plan through miopen/miopen.h alone (host buffers:
   the test runs on the CPU backend, MIOPEN_BACKEND=cpu). */
#include <math.h>
#include <miopen/miopen.h>
#include <miopen/version.h>
#include <stdio.h>

/* Leaky ReLU (alpha 0.1) forward then backward on a 1x1x2x3 tensor; 0 when both match. */
static int activation_works(miopenHandle_t h) {
  const float x[6] = {-2.0f, -1.0f, 0.5f, 1.0f, 2.0f, -0.5f};
  const float dy[6] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  float y[6], dx[6];
  const float one = 1.0f, zero = 0.0f;
  miopenTensorDescriptor_t t;
  miopenActivationDescriptor_t a;
  int bad = 0, i;
  if (miopenCreateTensorDescriptor(&t) != miopenStatusSuccess) return 1;
  if (miopenCreateActivationDescriptor(&a) != miopenStatusSuccess) return 1;
  bad |= miopenSet4dTensorDescriptor(t, miopenFloat, 1, 1, 2, 3) != miopenStatusSuccess;
  bad |= miopenSetActivationDescriptor(a, miopenActivationLEAKYRELU, 0.1, 0.0, 0.0) !=
         miopenStatusSuccess;
  bad |= miopenActivationForward(h, a, &one, t, x, &zero, t, y) != miopenStatusSuccess;
  bad |=
      miopenActivationBackward(h, a, &one, t, y, t, dy, t, x, &zero, t, dx) != miopenStatusSuccess;
  for (i = 0; i < 6 && !bad; ++i) {
    const float want_y = x[i] > 0.0f ? x[i] : 0.1f * x[i];
    const float want_dx = x[i] > 0.0f ? 1.0f : 0.1f;
    bad |= y[i] != want_y || dx[i] != want_dx;
  }
  miopenDestroyActivationDescriptor(a);
  miopenDestroyTensorDescriptor(t);
  return bad;
}

/* Softmax over 4 channels of one pixel (legacy call: ACCURATE, CHANNEL) and log-softmax (_V2);
   0 when the outputs sum to 1 and the log outputs are their logarithms. */
static int softmax_works(miopenHandle_t h) {
  const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float y[4], ly[4], sum = 0.0f, d;
  const float one = 1.0f, zero = 0.0f;
  miopenTensorDescriptor_t t;
  int bad = 0, i;
  if (miopenCreateTensorDescriptor(&t) != miopenStatusSuccess) return 1;
  bad |= miopenSet4dTensorDescriptor(t, miopenFloat, 1, 4, 1, 1) != miopenStatusSuccess;
  bad |= miopenSoftmaxForward(h, &one, t, x, &zero, t, y) != miopenStatusSuccess;
  bad |= miopenSoftmaxForward_V2(h, &one, t, x, &zero, t, ly, MIOPEN_SOFTMAX_LOG,
                                 MIOPEN_SOFTMAX_MODE_CHANNEL) != miopenStatusSuccess;
  for (i = 0; i < 4 && !bad; ++i) {
    sum += y[i];
    d = ly[i] - (float)log(y[i]);
    bad |= d > 1e-5f || d < -1e-5f;
  }
  bad |= sum < 0.9999f || sum > 1.0001f;
  miopenDestroyTensorDescriptor(t);
  return bad;
}

/* Cross-channel LRN (lrnN 3, alpha 3, beta 1, K 1) over x = {1, 2, 3} in three channels, keeping
   the scale, then backward with dy = {1, 0, 0}; 0 when y, the scale, dx and MIOpen's workspace
   size (n * n-stride * sizeof(float)) are as worked out by hand. */
static int lrn_works(miopenHandle_t h) {
  const float x[3] = {1.0f, 2.0f, 3.0f}, dy[3] = {1.0f, 0.0f, 0.0f};
  const float want_y[3] = {1.0f / 6, 2.0f / 15, 3.0f / 14}, want_s[3] = {6.0f, 15.0f, 14.0f};
  const float want_dx[3] = {1.0f / 9, -1.0f / 9, 0.0f};
  float y[3], dx[3], ws[3];
  const float one = 1.0f, zero = 0.0f;
  size_t ws_bytes = 0;
  miopenTensorDescriptor_t t;
  miopenLRNDescriptor_t l;
  int bad = 0, i;
  if (miopenCreateTensorDescriptor(&t) != miopenStatusSuccess) return 1;
  if (miopenCreateLRNDescriptor(&l) != miopenStatusSuccess) return 1;
  bad |= miopenSet4dTensorDescriptor(t, miopenFloat, 1, 3, 1, 1) != miopenStatusSuccess;
  bad |= miopenSetLRNDescriptor(l, miopenLRNCrossChannel, 3, 3.0, 1.0, 1.0) != miopenStatusSuccess;
  bad |= miopenLRNGetWorkSpaceSize(t, &ws_bytes) != miopenStatusSuccess || ws_bytes != sizeof ws;
  bad |= miopenLRNForward(h, l, &one, t, x, &zero, t, y, 1, ws) != miopenStatusSuccess;
  bad |= miopenLRNBackward(h, l, &one, t, y, t, dy, t, x, &zero, t, dx, ws) != miopenStatusSuccess;
  for (i = 0; i < 3 && !bad; ++i)
    bad |= fabsf(y[i] - want_y[i]) > 1e-6f || fabsf(ws[i] - want_s[i]) > 1e-5f ||
           fabsf(dx[i] - want_dx[i]) > 1e-6f;
  miopenDestroyLRNDescriptor(l);
  miopenDestroyTensorDescriptor(t);
  return bad;
}

/* CTC loss of one time step, three classes of equal activation, label 2 (blank 0, softmax
   applied): loss log 3, gradients 1/3, 1/3, -2/3. 0 when so. */
static int ctc_works(miopenHandle_t h) {
  const float x[3] = {0.0f, 0.0f, 0.0f};
  const int dims[3] = {1, 1, 3}, labels[1] = {2}, label_len[1] = {1}, input_len[1] = {1};
  float loss = 0.0f, grad[3], work[64];
  size_t ws = 0;
  miopenTensorDescriptor_t t;
  miopenCTCLossDescriptor_t c;
  int bad = 0;
  if (miopenCreateTensorDescriptor(&t) != miopenStatusSuccess) return 1;
  if (miopenCreateCTCLossDescriptor(&c) != miopenStatusSuccess) return 1;
  bad |= miopenSetTensorDescriptor(t, miopenFloat, 3, dims, NULL) != miopenStatusSuccess;
  bad |= miopenSetCTCLossDescriptor(c, miopenFloat, 0, true) != miopenStatusSuccess;
  bad |= miopenGetCTCLossWorkspaceSize(h, t, t, labels, label_len, input_len,
                                       MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, c,
                                       &ws) != miopenStatusSuccess;
  bad |= ws > sizeof(work);
  if (!bad)
    bad |= miopenCTCLoss(h, t, x, labels, label_len, input_len, &loss, t, grad,
                         MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC, c, work, ws) != miopenStatusSuccess;
  bad |= bad || fabs(loss - log(3.0)) > 1e-5 || fabs(grad[0] - 1.0 / 3) > 1e-5 ||
         fabs(grad[2] + 2.0 / 3) > 1e-5;
  miopenDestroyCTCLossDescriptor(c);
  miopenDestroyTensorDescriptor(t);
  return bad;
}

/* MAX over the columns of a 2x3 tensor with flattened indices, buffers sized as the library
   asks; 0 when the maxima and their column indices are right. */
static int reduction_works(miopenHandle_t h) {
  const float a[6] = {1.0f, 5.0f, 2.0f, -1.0f, -3.0f, -2.0f};
  const int a_lens[2] = {2, 3}, c_lens[2] = {2, 1};
  float c[2] = {0.0f, 0.0f}, ws[2048];
  int idx[2] = {-1, -1}, bad = 0;
  size_t ws_bytes = 0, idx_bytes = 0;
  const float one = 1.0f, zero = 0.0f;
  miopenTensorDescriptor_t ad, cd;
  miopenReduceTensorDescriptor_t r;
  if (miopenCreateTensorDescriptor(&ad) != miopenStatusSuccess) return 1;
  if (miopenCreateTensorDescriptor(&cd) != miopenStatusSuccess) return 1;
  if (miopenCreateReduceTensorDescriptor(&r) != miopenStatusSuccess) return 1;
  bad |= miopenSetTensorDescriptor(ad, miopenFloat, 2, a_lens, NULL) != miopenStatusSuccess;
  bad |= miopenSetTensorDescriptor(cd, miopenFloat, 2, c_lens, NULL) != miopenStatusSuccess;
  bad |= miopenSetReduceTensorDescriptor(
             r, MIOPEN_REDUCE_TENSOR_MAX, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
             MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES, MIOPEN_32BIT_INDICES) != miopenStatusSuccess;
  bad |= miopenGetReductionWorkspaceSize(h, r, ad, cd, &ws_bytes) != miopenStatusSuccess;
  bad |= miopenGetReductionIndicesSize(h, r, ad, cd, &idx_bytes) != miopenStatusSuccess;
  bad |= ws_bytes > sizeof ws || idx_bytes != sizeof idx;
  if (!bad)
    bad |= miopenReduceTensor(h, r, idx, idx_bytes, ws, ws_bytes, &one, ad, a, &zero, cd, c) !=
           miopenStatusSuccess;
  bad |= c[0] != 5.0f || c[1] != -1.0f || idx[0] != 1 || idx[1] != 0;
  miopenDestroyReduceTensorDescriptor(r);
  miopenDestroyTensorDescriptor(cd);
  miopenDestroyTensorDescriptor(ad);
  return bad;
}

/* 2x2 max pooling, stride 2, on a 1x1x4x4 tensor holding 0..15: forward saving the indices, then
   backward routing dy to each window's maximum; 0 when y, the workspace size and dx match. */
static int pooling_works(miopenHandle_t h) {
  float x[16], y[4], dx[16];
  const float dy[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const float one = 1.0f, zero = 0.0f;
  unsigned char ws[16];
  size_t ws_size = 0;
  int n, c, oh, ow, bad = 0, i;
  miopenTensorDescriptor_t xt, yt;
  miopenPoolingDescriptor_t p;
  for (i = 0; i < 16; ++i)
    x[i] = (float)i;
  if (miopenCreateTensorDescriptor(&xt) != miopenStatusSuccess) return 1;
  if (miopenCreateTensorDescriptor(&yt) != miopenStatusSuccess) return 1;
  if (miopenCreatePoolingDescriptor(&p) != miopenStatusSuccess) return 1;
  bad |= miopenSet2dPoolingDescriptor(p, miopenPoolingMax, 2, 2, 0, 0, 2, 2) != miopenStatusSuccess;
  bad |= miopenSet4dTensorDescriptor(xt, miopenFloat, 1, 1, 4, 4) != miopenStatusSuccess;
  bad |= miopenGetPoolingForwardOutputDim(p, xt, &n, &c, &oh, &ow) != miopenStatusSuccess;
  bad |= n != 1 || c != 1 || oh != 2 || ow != 2;
  bad |= miopenSet4dTensorDescriptor(yt, miopenFloat, 1, 1, 2, 2) != miopenStatusSuccess;
  bad |= miopenPoolingGetWorkSpaceSizeV2(p, yt, &ws_size) != miopenStatusSuccess;
  bad |= ws_size != 4; /* one uint8 index per output */
  if (!bad) {
    bad |= miopenPoolingForward(h, p, &one, xt, x, &zero, yt, y, 1, ws, ws_size) !=
           miopenStatusSuccess;
    bad |= miopenPoolingBackward(h, p, &one, yt, y, yt, dy, xt, x, &zero, xt, dx, ws) !=
           miopenStatusSuccess;
  }
  for (i = 0; i < 16 && !bad; ++i) {
    /* The maxima are x[5], x[7], x[13], x[15]. */
    const float want = i == 5 ? 1.0f : i == 7 ? 2.0f : i == 13 ? 3.0f : i == 15 ? 4.0f : 0.0f;
    bad |= dx[i] != want;
  }
  bad |= bad || y[0] != 5.0f || y[1] != 7.0f || y[2] != 13.0f || y[3] != 15.0f;
  miopenDestroyPoolingDescriptor(p);
  miopenDestroyTensorDescriptor(yt);
  miopenDestroyTensorDescriptor(xt);
  return bad;
}

/* PyTorch's fused path (aten/src/ATen/native/miopen): a vertical fusion plan of a 1x1
   convolution, a bias and a ReLU on a 1x2x2x2 input, compiled, given its arguments and run; 0
   when y = relu(x0 - x1 + 0.5) as worked out by hand. */
static int fusion_works(miopenHandle_t h) {
  const float x[8] = {1.0f, 2.0f, 3.0f, 4.0f, 4.0f, 3.0f, 2.0f, 1.0f};
  const float w[2] = {1.0f, -1.0f}, bias[1] = {0.5f}, want[4] = {0.0f, 0.0f, 1.5f, 3.5f};
  const float one = 1.0f, zero = 0.0f;
  float y[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
  miopenTensorDescriptor_t xd, wd, bd, yd;
  miopenConvolutionDescriptor_t conv;
  miopenFusionPlanDescriptor_t plan;
  miopenFusionOpDescriptor_t conv_op, bias_op, relu_op;
  miopenOperatorArgs_t args;
  int bad = 0, i;
  if (miopenCreateTensorDescriptor(&xd) || miopenCreateTensorDescriptor(&wd) ||
      miopenCreateTensorDescriptor(&bd) || miopenCreateTensorDescriptor(&yd) ||
      miopenCreateConvolutionDescriptor(&conv))
    return 1;
  bad |= miopenSet4dTensorDescriptor(xd, miopenFloat, 1, 2, 2, 2) != miopenStatusSuccess;
  bad |= miopenSet4dTensorDescriptor(wd, miopenFloat, 1, 2, 1, 1) != miopenStatusSuccess;
  bad |= miopenSet4dTensorDescriptor(bd, miopenFloat, 1, 1, 1, 1) != miopenStatusSuccess;
  bad |= miopenSet4dTensorDescriptor(yd, miopenFloat, 1, 1, 2, 2) != miopenStatusSuccess;
  bad |= miopenInitConvolutionDescriptor(conv, miopenConvolution, 0, 0, 1, 1, 1, 1) !=
         miopenStatusSuccess;
  if (bad || miopenCreateFusionPlan(&plan, miopenVerticalFusion, xd) != miopenStatusSuccess)
    return 1;
  bad |= miopenCreateOpConvForward(plan, &conv_op, conv, wd) != miopenStatusSuccess;
  bad |= miopenCreateOpBiasForward(plan, &bias_op, bd) != miopenStatusSuccess;
  bad |=
      miopenCreateOpActivationForward(plan, &relu_op, miopenActivationRELU) != miopenStatusSuccess;
  bad |= miopenCompileFusionPlan(h, plan) != miopenStatusSuccess;
  bad |= miopenCreateOperatorArgs(&args) != miopenStatusSuccess;
  if (!bad) {
    bad |= miopenSetOpArgsConvForward(args, conv_op, &one, &zero, w) != miopenStatusSuccess;
    bad |= miopenSetOpArgsBiasForward(args, bias_op, &one, &zero, bias) != miopenStatusSuccess;
    bad |= miopenSetOpArgsActivForward(args, relu_op, &one, &zero, 0.0, 0.0, 0.0) !=
           miopenStatusSuccess;
    bad |= miopenExecuteFusionPlan(h, plan, xd, x, yd, y, args) != miopenStatusSuccess;
    miopenDestroyOperatorArgs(args);
  }
  for (i = 0; i < 4 && !bad; ++i)
    bad |= y[i] != want[i];
  miopenDestroyFusionPlan(plan);
  miopenDestroyConvolutionDescriptor(conv);
  miopenDestroyTensorDescriptor(xd);
  miopenDestroyTensorDescriptor(wd);
  miopenDestroyTensorDescriptor(bd);
  miopenDestroyTensorDescriptor(yd);
  return bad;
}

int main(void) {
  size_t major, minor, patch;
  miopenHandle_t h;
  if (miopenGetVersion(&major, &minor, &patch) != miopenStatusSuccess) return 1;
  if (miopenCreate(&h) != miopenStatusSuccess) return 1;
  if (activation_works(h)) {
    printf("activation through miopen/miopen.h failed\n");
    return 1;
  }
  if (softmax_works(h)) {
    printf("softmax through miopen/miopen.h failed\n");
    return 1;
  }
  if (lrn_works(h)) {
    printf("LRN through miopen/miopen.h failed\n");
    return 1;
  }
  if (reduction_works(h)) {
    printf("reduction through miopen/miopen.h failed\n");
    return 1;
  }
  if (pooling_works(h)) {
    printf("pooling through miopen/miopen.h failed\n");
    return 1;
  }
  if (ctc_works(h)) {
    printf("CTC loss through miopen/miopen.h failed\n");
    return 1;
  }
  if (fusion_works(h)) {
    printf("a fusion plan (conv + bias + ReLU) through miopen/miopen.h failed\n");
    return 1;
  }
  if (miopenDestroy(h) != miopenStatusSuccess) return 1;
  printf(
      "found MIOpen %zu.%zu.%zu (activation, softmax, LRN, reduction, pooling, CTC loss and a "
      "fusion plan work)\n",
      major, minor, patch);
  return major == MIOPEN_VERSION_MAJOR ? 0 : 1;
}
