/*
 * Trains a tiny CNN on synthetic data through the MIOpen C API alone (any anydnn backend that
 * takes host pointers: the CPU backend by default):
 *
 *   z = BatchNorm(x)              spatial, training mode, learnable scale / bias
 *   y = conv3x3(z, W) + b         pad 1, Find picks the algorithms
 *   L = mean((y - t)^2)           t: the same network with fixed random "teacher" weights
 *
 * Backward: dy on the host, db = ConvolutionBackwardBias, dW = ConvolutionBackwardWeights,
 * dz = ConvolutionBackwardData, then BatchNormalizationBackward for dscale / dbias; plain SGD.
 * Prints the loss per step and exits with 1 unless the last loss is below a tenth of the first.
 */
#include <math.h>
#include <miopen/miopen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 8, C = 3, H = 12, W = 12, K = 4, R = 3, STEPS = 30 };

#define CHECK(call)                                                                            \
  do {                                                                                         \
    miopenStatus_t s_ = (call);                                                                \
    if (s_ != miopenStatusSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, miopenGetErrorString(s_)); \
      exit(2);                                                                                 \
    }                                                                                          \
  } while (0)

static unsigned long long rng_state = 88172645463325252ULL;
static float uniform(void) { /* xorshift64: reproducible synthetic data */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (float)((rng_state >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}
static float* alloc_fill(size_t n, float scale) {
  float* p = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    p[i] = scale * uniform();
  return p;
}
static miopenTensorDescriptor_t tensor4(int n, int c, int h, int w) {
  miopenTensorDescriptor_t d;
  CHECK(miopenCreateTensorDescriptor(&d));
  CHECK(miopenSet4dTensorDescriptor(d, miopenFloat, n, c, h, w));
  return d;
}

int main(void) {
  const size_t nx = (size_t)N * C * H * W, ny = (size_t)N * K * H * W, nw = (size_t)K * C * R * R;
  miopenHandle_t h;
  CHECK(miopenCreate(&h));
  miopenTensorDescriptor_t xd = tensor4(N, C, H, W), yd = tensor4(N, K, H, W),
                           wd = tensor4(K, C, R, R), bd = tensor4(1, K, 1, 1), sd;
  CHECK(miopenCreateTensorDescriptor(&sd));
  CHECK(miopenDeriveBNTensorDescriptor(sd, xd, miopenBNSpatial));
  miopenConvolutionDescriptor_t cd;
  CHECK(miopenCreateConvolutionDescriptor(&cd));
  CHECK(miopenInitConvolutionDescriptor(cd, miopenConvolution, 1, 1, 1, 1, 1, 1));

  float *x = alloc_fill(nx, 2.0f), *z = calloc(nx, sizeof(float)), *dz = calloc(nx, sizeof(float)),
        *dx = calloc(nx, sizeof(float));
  float *y = calloc(ny, sizeof(float)), *t = calloc(ny, sizeof(float)),
        *dy = calloc(ny, sizeof(float));
  float *w = alloc_fill(nw, 0.3f), *dw = calloc(nw, sizeof(float)), *tw = alloc_fill(nw, 0.5f);
  float *b = calloc(K, sizeof(float)), *db = calloc(K, sizeof(float)), *tb = alloc_fill(K, 1.0f);
  float scale[C], bias[C], dscale[C], dbias[C], mean[C], invstd[C], tscale[C], tbias[C];
  for (int c = 0; c < C; ++c) {
    scale[c] = 1.0f, bias[c] = 0.0f;
    tscale[c] = 1.0f + 0.5f * uniform(), tbias[c] = 0.5f * uniform();
  }
  float one = 1.0f, zero = 0.0f; /* MIOpen's BN calls take non-const alpha / beta */

  /* Algorithms from Find, once (they are cached in the find-db for later runs too). */
  size_t ws_size = 0, s;
  CHECK(miopenConvolutionForwardGetWorkSpaceSize(h, wd, xd, cd, yd, &s));
  ws_size = s;
  CHECK(miopenConvolutionBackwardDataGetWorkSpaceSize(h, yd, wd, cd, xd, &s));
  ws_size = s > ws_size ? s : ws_size;
  CHECK(miopenConvolutionBackwardWeightsGetWorkSpaceSize(h, yd, xd, cd, wd, &s));
  ws_size = s > ws_size ? s : ws_size;
  void* ws = malloc(ws_size ? ws_size : 1);
  miopenConvAlgoPerf_t perf;
  int found;
  CHECK(miopenFindConvolutionForwardAlgorithm(h, xd, x, wd, w, cd, yd, y, 1, &found, &perf, ws,
                                              ws_size, false));
  const miopenConvFwdAlgorithm_t fwd = perf.fwd_algo;
  CHECK(miopenFindConvolutionBackwardDataAlgorithm(h, yd, y, wd, w, cd, xd, dz, 1, &found, &perf,
                                                   ws, ws_size, false));
  const miopenConvBwdDataAlgorithm_t bwd_data = perf.bwd_data_algo;
  CHECK(miopenFindConvolutionBackwardWeightsAlgorithm(h, yd, y, xd, x, cd, wd, dw, 1, &found, &perf,
                                                      ws, ws_size, false));
  const miopenConvBwdWeightsAlgorithm_t bwd_weights = perf.bwd_weights_algo;

  /* The teacher's output is the target. */
  CHECK(miopenBatchNormalizationForwardTraining(h, miopenBNSpatial, &one, &zero, xd, x, xd, z, sd,
                                                tscale, tbias, 1.0, NULL, NULL, 1e-5, NULL, NULL));
  CHECK(miopenConvolutionForward(h, &one, xd, z, wd, tw, cd, fwd, &zero, yd, t, ws, ws_size));
  CHECK(miopenConvolutionForwardBias(h, &one, bd, tb, &zero, yd, t));

  const float lr = 0.2f;
  double first = 0.0, loss = 0.0;
  for (int step = 0; step < STEPS; ++step) {
    CHECK(miopenBatchNormalizationForwardTraining(h, miopenBNSpatial, &one, &zero, xd, x, xd, z, sd,
                                                  scale, bias, 1.0, NULL, NULL, 1e-5, mean,
                                                  invstd));
    CHECK(miopenConvolutionForward(h, &one, xd, z, wd, w, cd, fwd, &zero, yd, y, ws, ws_size));
    CHECK(miopenConvolutionForwardBias(h, &one, bd, b, &zero, yd, y));
    loss = 0.0;
    for (size_t i = 0; i < ny; ++i) {
      const double e = (double)y[i] - t[i];
      loss += e * e;
      dy[i] = (float)(2.0 * e / ny);
    }
    loss /= ny;
    if (step == 0) first = loss;
    printf("step %2d  loss %.6f\n", step, loss);

    CHECK(miopenConvolutionBackwardBias(h, &one, yd, dy, &zero, bd, db));
    CHECK(miopenConvolutionBackwardWeights(h, &one, yd, dy, xd, z, cd, bwd_weights, &zero, wd, dw,
                                           ws, ws_size));
    CHECK(miopenConvolutionBackwardData(h, &one, yd, dy, wd, w, cd, bwd_data, &zero, xd, dz, ws,
                                        ws_size));
    CHECK(miopenBatchNormalizationBackward(h, miopenBNSpatial, &one, &zero, &one, &zero, xd, x, xd,
                                           dz, xd, dx, sd, scale, dscale, dbias, 1e-5, mean,
                                           invstd));
    for (size_t i = 0; i < nw; ++i)
      w[i] -= lr * dw[i];
    for (int k = 0; k < K; ++k)
      b[k] -= lr * db[k];
    for (int c = 0; c < C; ++c)
      scale[c] -= lr * dscale[c], bias[c] -= lr * dbias[c];
  }
  printf("loss %.6f -> %.6f (%s)\n", first, loss,
         loss < 0.1 * first ? "decreased" : "NOT decreased");

  free(ws), free(x), free(z), free(dz), free(dx), free(y), free(t), free(dy);
  free(w), free(dw), free(tw), free(b), free(db), free(tb);
  miopenDestroyConvolutionDescriptor(cd);
  miopenDestroyTensorDescriptor(xd), miopenDestroyTensorDescriptor(yd);
  miopenDestroyTensorDescriptor(wd), miopenDestroyTensorDescriptor(bd);
  miopenDestroyTensorDescriptor(sd);
  miopenDestroy(h);
  return loss < 0.1 * first ? 0 : 1;
}
