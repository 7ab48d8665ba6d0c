/* The C spelling of stream_type_client.cpp: `cudaStream_t s; miopenGetStream(h, &s);` compiles
 * in C (no cast) when the library has the CUDA backend; `void* s` in a CPU-only build. Built as
 * C11 without -pedantic-errors: CUDA's own headers use anonymous unions, which C99 lacks
 * (miopen.h itself needs no CUDA header and stays C99: c99_conv.c). */
#include <miopen/anydnn.h>
#include <miopen/miopen.h>
#include <stdio.h>
#if ANYDNN_BACKEND_CUDA
#include <cuda_runtime_api.h>
#endif

int main(void) {
  miopenHandle_t h = NULL;
#if ANYDNN_BACKEND_CUDA
  cudaStream_t s = NULL;
#else
  void* s = NULL;
#endif
  if (anydnnCreateWithBackend(&h, anydnnBackendCpu, NULL) != miopenStatusSuccess) return 1;
  if (miopenGetStream(h, &s) != miopenStatusSuccess || s != NULL) return 1;
  if (miopenDestroy(h) != miopenStatusSuccess) return 1;
  printf("C client: stream type OK\n");
  return 0;
}
