// A GPU client's stream code compiles against the installed header (issue [gpu-truth] 5): real
// MIOpen clients write `hipStream_t s; miopenGetStream(h, &s);` (TensorFlow's MIOpen wrapper
// does), so with the CUDA backend miopenAcceleratorQueue_t must be cudaStream_t itself, and
// hipified code on the NVIDIA platform (hipStream_t = cudaStream_t) must compile too. A CPU-only
// build keeps an opaque pointer. Run with "cuda" the program also passes a real stream through
// miopenCreateWithStream / miopenSetStream / miopenGetStream; with "cpu" it checks the CPU
// backend's NULL stream.
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <cstdio>
#include <cstring>
#include <type_traits>

#if ANYDNN_BACKEND_CUDA
#include <cuda_runtime_api.h>
static_assert(std::is_same_v<miopenAcceleratorQueue_t, cudaStream_t>,
              "a CUDA build types miopenAcceleratorQueue_t as cudaStream_t");
using ClientStream = cudaStream_t;
// What hipify leaves on the NVIDIA platform: HIP's nvidia_hip_runtime_api.h says exactly this.
typedef cudaStream_t hipStream_t;
#else
static_assert(std::is_same_v<miopenAcceleratorQueue_t, void*>,
              "a CPU-only build keeps an opaque stream pointer");
using ClientStream = void*;
typedef void* hipStream_t;
#endif

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main(int argc, char** argv) {
  const bool cuda = argc > 1 && std::strcmp(argv[1], "cuda") == 0;
  miopenHandle_t h = nullptr;
  CHECK(anydnnCreateWithBackend(&h, cuda ? anydnnBackendCuda : anydnnBackendCpu, nullptr) ==
        miopenStatusSuccess);
  ClientStream s{};
  CHECK(miopenGetStream(h, &s) == miopenStatusSuccess);  // the line clients write
  hipStream_t hs{};
  CHECK(miopenGetStream(h, &hs) == miopenStatusSuccess);  // and its hipified spelling
  CHECK(s == hs);
  if (!cuda) CHECK(s == nullptr);
#if ANYDNN_BACKEND_CUDA
  if (cuda) {
    cudaStream_t mine = nullptr;
    CHECK(cudaStreamCreate(&mine) == cudaSuccess);
    CHECK(miopenSetStream(h, mine) == miopenStatusSuccess);
    CHECK(miopenGetStream(h, &s) == miopenStatusSuccess);
    CHECK(s == mine);
    miopenHandle_t h2 = nullptr;
    CHECK(miopenCreateWithStream(&h2, mine) == miopenStatusSuccess);
    cudaStream_t got = nullptr;
    CHECK(miopenGetStream(h2, &got) == miopenStatusSuccess);
    CHECK(got == mine);
    CHECK(miopenDestroy(h2) == miopenStatusSuccess);
    CHECK(miopenDestroy(h) == miopenStatusSuccess);
    CHECK(cudaStreamDestroy(mine) == cudaSuccess);
    std::printf("stream type: cudaStream_t round trip OK\n");
    return 0;
  }
#endif
  CHECK(miopenDestroy(h) == miopenStatusSuccess);
  std::printf("stream type: %s OK\n", ANYDNN_BACKEND_CUDA ? "cudaStream_t" : "void*");
  return 0;
}
