// Device-side random fill and the host-side comparison of two device arrays.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu_common.hpp"

namespace anydnn::gpubench {

namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ __forceinline__ void store(float* p, float v) {
  *p = v;
}
__device__ __forceinline__ void store(__half* p, float v) {
  *p = __float2half_rn(v);
}
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) {
  *p = __float2bfloat16_rn(v);
}

template <class T>
__global__ void fill_kernel(T* p, size_t n, uint64_t seed, float lo, float scale) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // 24 random bits -> [0, 1).
    const float u = static_cast<float>(splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull)) >> 40) *
                    (1.0f / 16777216.0f);
    store(p + i, lo + scale * u);
  }
}

}  // namespace

void fill_uniform(void* dst, DType t, size_t n, uint64_t seed, float lo, float hi,
                  cudaStream_t stream) {
  if (n == 0) return;
  const int threads = 256;
  const size_t blocks = std::min<size_t>((n + threads - 1) / threads, 65536);
  const uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  if (t == DType::F32)
    fill_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(static_cast<float*>(dst), n,
                                                                       s, lo, hi - lo);
  else if (t == DType::F16)
    fill_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(static_cast<__half*>(dst), n,
                                                                       s, lo, hi - lo);
  else
    fill_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
        static_cast<__nv_bfloat16*>(dst), n, s, lo, hi - lo);
  check_cuda(cudaGetLastError(), "fill_uniform launch");
}

namespace {

template <class T>
std::vector<T> to_host(const void* p, size_t n, cudaStream_t stream) {
  std::vector<T> h(n);
  check_cuda(cudaMemcpyAsync(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost, stream), "D2H");
  check_context(stream);
  return h;
}

inline double value(float v) {
  return v;
}
inline double value(__half v) {
  return __half2float(v);
}
inline double value(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T>
Diff compare_as(const void* a, const void* b, size_t n, cudaStream_t stream) {
  const std::vector<T> x = to_host<T>(a, n, stream), y = to_host<T>(b, n, stream);
  Diff d;
  double num = 0, den = 0, mx = 0;
  for (size_t i = 0; i < n; ++i) {
    const double xi = value(x[i]), yi = value(y[i]);
    if (!std::isfinite(xi) || !std::isfinite(yi)) {
      d.finite = false;
      continue;
    }
    const double e = xi - yi;
    num += e * e;
    den += yi * yi;
    mx = std::max(mx, std::fabs(e));
  }
  d.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  d.max_abs = mx;
  return d;
}

template <class T>
bool finite_as(const void* a, size_t n, cudaStream_t stream) {
  const std::vector<T> x = to_host<T>(a, n, stream);
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(value(x[i]))) return false;
  return true;
}

}  // namespace

Diff compare(const void* a, const void* b, DType t, size_t n, cudaStream_t stream) {
  if (t == DType::F32) return compare_as<float>(a, b, n, stream);
  if (t == DType::F16) return compare_as<__half>(a, b, n, stream);
  return compare_as<__nv_bfloat16>(a, b, n, stream);
}

bool all_finite(const void* a, DType t, size_t n, cudaStream_t stream) {
  if (t == DType::F32) return finite_as<float>(a, n, stream);
  if (t == DType::F16) return finite_as<__half>(a, n, stream);
  return finite_as<__nv_bfloat16>(a, n, stream);
}

}  // namespace anydnn::gpubench
