/* Links the installed libMIOpen through find_package(miopen) and makes real calls: the version,
   a handle, and an activation forward / backward through miopen/miopen.h alone (host buffers:
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
  if (ctc_works(h)) {
    printf("CTC loss through miopen/miopen.h failed\n");
    return 1;
  }
  if (miopenDestroy(h) != miopenStatusSuccess) return 1;
  printf("found MIOpen %zu.%zu.%zu (activation, softmax and CTC loss work)\n", major, minor, patch);
  return major == MIOPEN_VERSION_MAJOR ? 0 : 1;
}
