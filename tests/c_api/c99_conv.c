/* A plain C99 client: includes miopen/miopen.h, runs a forward convolution through Find and
 * miopenConvolutionForward, and checks it against its own direct loop (double accumulation).
 * Built with -std=c99 -pedantic-errors, so the header must be valid C. */
#include <math.h>
#include <miopen/miopen.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    miopenStatus_t s_ = (call);                                            \
    if (s_ != miopenStatusSuccess) {                                       \
      fprintf(stderr, "%s failed: %s\n", #call, miopenGetErrorString(s_)); \
      return 1;                                                            \
    }                                                                      \
  } while (0)

enum { N = 2, C = 4, H = 9, W = 10, K = 6, R = 3, S = 3, PAD = 1, STRIDE = 2 };

/* Values in [-1, 1] from a small LCG (rand_r is POSIX, not C99). */
static float next_value(unsigned long* state) {
  *state = (*state * 1103515245ul + 12345ul) & 0x7ffffffful;
  return (float)((long)(*state % 2001ul) - 1000) / 1000.0f;
}

int main(void) {
  miopenHandle_t handle;
  miopenTensorDescriptor_t x_desc, w_desc, y_desc;
  miopenConvolutionDescriptor_t conv;
  int n, k, ho, wo, i, found = 0;
  size_t ws_size = 0, y_count, j;
  float *x, *w, *y;
  void* ws = NULL;
  miopenConvAlgoPerf_t perf[2];
  const float alpha = 1.0f, beta = 0.0f;
  double err = 0.0, maxabs = 0.0;
  unsigned long seed = 12345ul;

  CHECK(miopenCreate(&handle));
  CHECK(miopenCreateTensorDescriptor(&x_desc));
  CHECK(miopenCreateTensorDescriptor(&w_desc));
  CHECK(miopenCreateTensorDescriptor(&y_desc));
  CHECK(miopenCreateConvolutionDescriptor(&conv));
  CHECK(miopenSet4dTensorDescriptor(x_desc, miopenFloat, N, C, H, W));
  CHECK(miopenSet4dTensorDescriptor(w_desc, miopenFloat, K, C, R, S));
  CHECK(miopenInitConvolutionDescriptor(conv, miopenConvolution, PAD, PAD, STRIDE, STRIDE, 1, 1));
  CHECK(miopenGetConvolutionForwardOutputDim(conv, x_desc, w_desc, &n, &k, &ho, &wo));
  CHECK(miopenSet4dTensorDescriptor(y_desc, miopenFloat, n, k, ho, wo));

  x = malloc(sizeof(float) * N * C * H * W);
  w = malloc(sizeof(float) * K * C * R * S);
  y_count = (size_t)n * k * ho * wo;
  y = malloc(sizeof(float) * y_count);
  for (i = 0; i < N * C * H * W; ++i)
    x[i] = next_value(&seed);
  for (i = 0; i < K * C * R * S; ++i)
    w[i] = next_value(&seed);

  CHECK(miopenConvolutionForwardGetWorkSpaceSize(handle, w_desc, x_desc, conv, y_desc, &ws_size));
  if (ws_size > 0) ws = malloc(ws_size);
  CHECK(miopenFindConvolutionForwardAlgorithm(handle, x_desc, x, w_desc, w, conv, y_desc, y, 2,
                                              &found, perf, ws, ws_size, false));
  if (found < 1) return 1;
  for (j = 0; j < y_count; ++j)
    y[j] = NAN;
  CHECK(miopenConvolutionForward(handle, &alpha, x_desc, x, w_desc, w, conv, perf[0].fwd_algo,
                                 &beta, y_desc, y, ws, perf[0].memory));

  {
    int nn, kk, oh, ow, c, r, s;
    for (nn = 0; nn < n; ++nn)
      for (kk = 0; kk < k; ++kk)
        for (oh = 0; oh < ho; ++oh)
          for (ow = 0; ow < wo; ++ow) {
            double acc = 0.0, d;
            for (c = 0; c < C; ++c)
              for (r = 0; r < R; ++r)
                for (s = 0; s < S; ++s) {
                  const int ih = oh * STRIDE + r - PAD, iw = ow * STRIDE + s - PAD;
                  if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                  acc += (double)x[((nn * C + c) * H + ih) * W + iw] *
                         (double)w[((kk * C + c) * R + r) * S + s];
                }
            d = acc - (double)y[((nn * k + kk) * ho + oh) * wo + ow];
            err += d * d;
            if (fabs(acc) > maxabs) maxabs = fabs(acc);
          }
  }
  err = sqrt(err / (double)y_count) / maxabs;
  printf("C99 client: algorithm %d, rms error %g\n", (int)perf[0].fwd_algo, err);

  free(ws);
  free(x);
  free(w);
  free(y);
  CHECK(miopenDestroyConvolutionDescriptor(conv));
  CHECK(miopenDestroyTensorDescriptor(x_desc));
  CHECK(miopenDestroyTensorDescriptor(w_desc));
  CHECK(miopenDestroyTensorDescriptor(y_desc));
  CHECK(miopenDestroy(handle));
  return err < 1.5e-6 ? 0 : 1;
}
