/* Links the installed libMIOpen through find_package(miopen) and follows MIGraphX's Find 2.0 flow
   through miopen/miopen.h alone: for each direction of a small convolution (2 -> 3 channels,
   3x3, padding 1, 5x4 image), create the problem, set its tensors, find its solutions, save each
   to a blob, destroy it, load it back and run it; 0 when every run matches the convolution
   worked out here in double. Host buffers: the test runs on the CPU backend (MIOPEN_BACKEND=cpu).
 */
#include <math.h>
#include <miopen/miopen.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1, C = 2, K = 3, H = 5, W = 4, R = 3, S = 3 };

static float x[N * C * H * W], w[K * C * R * S], y[N * K * H * W];
static double want_x[N * C * H * W], want_w[K * C * R * S], want_y[N * K * H * W];

/* y = conv(x, w), dx = conv_bwd(dy = y, w), dw = conv_wrw(x, dy = y), all with padding 1. */
static void reference(void) {
  int n, k, c, h, v, r, s;
  for (n = 0; n < N; ++n)
    for (k = 0; k < K; ++k)
      for (c = 0; c < C; ++c)
        for (h = 0; h < H; ++h)
          for (v = 0; v < W; ++v)
            for (r = 0; r < R; ++r)
              for (s = 0; s < S; ++s) {
                const int ih = h + r - 1, iw = v + s - 1;
                const int yi = ((n * K + k) * H + h) * W + v, wi = ((k * C + c) * R + r) * S + s;
                int xi;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                xi = ((n * C + c) * H + ih) * W + iw;
                want_y[yi] += (double)x[xi] * w[wi];
                want_x[xi] += (double)y[yi] * w[wi];
                want_w[wi] += (double)x[xi] * y[yi];
              }
}

static int matches(const float* got, const double* want, int count) {
  int i;
  for (i = 0; i < count; ++i)
    if (!(fabs(got[i] - want[i]) <= 1e-4 * (1.0 + fabs(want[i])))) return 0;
  return 1;
}

/* Find, save, load and run every solution of one direction; 0 when all of them match. */
static int direction_works(miopenHandle_t h, miopenConvolutionDescriptor_t conv,
                           miopenTensorDescriptor_t xd, miopenTensorDescriptor_t wd,
                           miopenTensorDescriptor_t yd, miopenProblemDirection_t dir) {
  float out_x[N * C * H * W], out_w[K * C * R * S], out_y[N * K * H * W];
  miopenProblem_t problem;
  miopenFindOptions_t options;
  miopenSolution_t found[8];
  size_t count = 0, i;
  int bad = 0;
  if (miopenCreateConvProblem(&problem, conv, dir) != miopenStatusSuccess) return 1;
  bad |= miopenSetProblemTensorDescriptor(problem, miopenTensorConvolutionX, xd) != 0;
  bad |= miopenSetProblemTensorDescriptor(problem, miopenTensorConvolutionW, wd) != 0;
  bad |= miopenSetProblemTensorDescriptor(problem, miopenTensorConvolutionY, yd) != 0;
  bad |= miopenCreateFindOptions(&options) != miopenStatusSuccess;
  bad |= miopenSetFindOptionResultsOrder(options, miopenFindResultsOrderByTime) != 0;
  bad |= miopenFindSolutions(h, problem, options, found, &count, 8) != miopenStatusSuccess;
  bad |= count == 0;
  for (i = 0; i < count && !bad; ++i) {
    size_t size = 0, ws_size = 0;
    char* blob;
    void* ws;
    miopenSolution_t loaded;
    miopenTensorArgument_t args[3];
    bad |= miopenGetSolutionSize(found[i], &size) != miopenStatusSuccess;
    blob = (char*)malloc(size);
    bad |= blob == NULL || miopenSaveSolution(found[i], blob) != miopenStatusSuccess;
    if (!bad) bad |= miopenLoadSolution(&loaded, blob, size) != miopenStatusSuccess;
    free(blob);
    if (bad) break;
    bad |= miopenGetSolutionWorkspaceSize(loaded, &ws_size) != miopenStatusSuccess;
    ws = ws_size ? malloc(ws_size) : NULL;
    args[0].id = miopenTensorConvolutionX;
    args[0].descriptor = NULL;
    args[0].buffer = dir == miopenProblemDirectionBackward ? (void*)out_x : (void*)x;
    args[1].id = miopenTensorConvolutionW;
    args[1].descriptor = &wd; /* the problem's own descriptor may be given */
    args[1].buffer = dir == miopenProblemDirectionBackwardWeights ? (void*)out_w : (void*)w;
    args[2].id = miopenTensorConvolutionY;
    args[2].descriptor = NULL;
    args[2].buffer = dir == miopenProblemDirectionForward ? (void*)out_y : (void*)y;
    bad |= miopenRunSolution(h, loaded, 3, args, ws, ws_size) != miopenStatusSuccess;
    free(ws);
    miopenDestroySolution(loaded);
    if (dir == miopenProblemDirectionForward)
      bad |= !matches(out_y, want_y, N * K * H * W);
    else if (dir == miopenProblemDirectionBackward)
      bad |= !matches(out_x, want_x, N * C * H * W);
    else
      bad |= !matches(out_w, want_w, K * C * R * S);
  }
  for (i = 0; i < count; ++i)
    miopenDestroySolution(found[i]);
  miopenDestroyFindOptions(options);
  miopenDestroyProblem(problem);
  return bad;
}

int main(void) {
  miopenHandle_t h;
  miopenTensorDescriptor_t xd, wd, yd;
  miopenConvolutionDescriptor_t conv;
  const miopenProblemDirection_t dirs[3] = {miopenProblemDirectionForward,
                                            miopenProblemDirectionBackward,
                                            miopenProblemDirectionBackwardWeights};
  const char* names[3] = {"forward", "backward data", "backward weights"};
  miopenConvAlgorithm_t algo;
  int i, bad = 0;
  srand(7);
  for (i = 0; i < N * C * H * W; ++i)
    x[i] = (float)(rand() % 17 - 8) / 8.0f;
  for (i = 0; i < K * C * R * S; ++i)
    w[i] = (float)(rand() % 17 - 8) / 8.0f;
  for (i = 0; i < N * K * H * W; ++i)
    y[i] = (float)(rand() % 17 - 8) / 8.0f;
  reference();
  if (miopenCreate(&h) != miopenStatusSuccess) return 1;
  if (miopenCreateTensorDescriptor(&xd) || miopenCreateTensorDescriptor(&wd) ||
      miopenCreateTensorDescriptor(&yd) || miopenCreateConvolutionDescriptor(&conv))
    return 1;
  bad |= miopenSet4dTensorDescriptor(xd, miopenFloat, N, C, H, W) != miopenStatusSuccess;
  bad |= miopenSet4dTensorDescriptor(wd, miopenFloat, K, C, R, S) != miopenStatusSuccess;
  bad |= miopenSet4dTensorDescriptor(yd, miopenFloat, N, K, H, W) != miopenStatusSuccess;
  bad |= miopenInitConvolutionDescriptor(conv, miopenConvolution, 1, 1, 1, 1, 1, 1) !=
         miopenStatusSuccess;
  for (i = 0; i < 3 && !bad; ++i) {
    if (direction_works(h, conv, xd, wd, yd, dirs[i])) {
      printf("Find 2.0 %s through miopen/miopen.h failed\n", names[i]);
      bad = 1;
    }
  }
  /* The naive forward solver (id 1) is a direct algorithm; no handle is needed to ask. */
  bad |= miopenGetSolverIdConvAlgorithm(1, &algo) != miopenStatusSuccess ||
         algo != miopenConvolutionAlgoDirect;
  miopenDestroyConvolutionDescriptor(conv);
  miopenDestroyTensorDescriptor(xd);
  miopenDestroyTensorDescriptor(wd);
  miopenDestroyTensorDescriptor(yd);
  miopenDestroy(h);
  if (!bad) printf("Find 2.0 works (find, save, load, run in every direction)\n");
  return bad;
}
