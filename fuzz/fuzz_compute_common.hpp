// What the fuzz_compute harness's call families share: tensors whose buffers are exactly as
// large as their descriptors say, fuzzed descriptors and data types, and workspaces with fuzzed
// claimed sizes, in host or (fuzz_compute_cuda) CUDA managed memory. Header-only (one harness, two
// translation units: fuzz_compute.cpp for convolution, batch norm, RNN and dropout,
// fuzz_compute_layers.cpp for the layer families).
#pragma once

#include <miopen/miopen.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(ANYDNN_FUZZ_CUDA)
#include <cuda_runtime.h>
#endif

#include "fuzz_common.hpp"

namespace anydnn::fuzz::compute {

using anydnn::fuzz::enum_value;

constexpr size_t kMaxElems = 4096;

// fuzz_compute_cuda: waits for the GPU and aborts (a crash for the fuzzer) when a kernel faulted.
// A no-op in the CPU harness.
inline void check_device() {
#if defined(ANYDNN_FUZZ_CUDA)
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "fuzz_compute_cuda: %s after a library call\n", cudaGetErrorString(e));
    std::abort();
  }
#endif
}

// The memory of every buffer the library reads or writes: host memory, or in fuzz_compute_cuda
// CUDA managed memory, which both the CUDA backend's kernels and the harness's host code reach
// (small: the harness's tensors hold at most kMaxElems elements, workspaces 16 MiB).
template <class T>
struct CallAlloc {
  using value_type = T;
  CallAlloc() = default;
  template <class U>
  CallAlloc(const CallAlloc<U>&) {}
  T* allocate(size_t n) {
#if defined(ANYDNN_FUZZ_CUDA)
    void* p = nullptr;
    if (cudaMallocManaged(&p, std::max<size_t>(n * sizeof(T), 1)) != cudaSuccess)
      throw std::bad_alloc();
    return static_cast<T*>(p);
#else
    return std::allocator<T>().allocate(n);
#endif
  }
  void deallocate(T* p, size_t n) {
#if defined(ANYDNN_FUZZ_CUDA)
    (void)n;
    check_device();  // kernels on the handle's stream may still use it
    cudaFree(p);
#else
    std::allocator<T>().deallocate(p, n);
#endif
  }
  template <class U>
  bool operator==(const CallAlloc<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const CallAlloc<U>&) const {
    return false;
  }
};
template <class T>
using Buffer = std::vector<T, CallAlloc<T>>;
using Bytes = Buffer<uint8_t>;

struct Tensor {
  miopenTensorDescriptor_t desc = nullptr;
  Bytes buf;  // at least the descriptor's byte size, when it has one
  Tensor() { miopenCreateTensorDescriptor(&desc); }
  ~Tensor() { miopenDestroyTensorDescriptor(desc); }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  void* data() { return buf.empty() ? nullptr : buf.data(); }
  // Sizes the buffer to the descriptor; false when it is unset or too large for the harness
  // (the call is then skipped: the harness never hands over a short buffer).
  bool alloc(FuzzedDataProvider& fdp) {
    size_t bytes = 0;
    if (miopenGetTensorNumBytes(desc, &bytes) != miopenStatusSuccess) return false;
    if (bytes > kMaxElems * 8) return false;
    buf.assign(bytes + 1, 0);
    // Small finite floats in most elements: the bytes' values rarely matter, NaN/Inf sometimes.
    const uint8_t pattern = fdp.ConsumeIntegral<uint8_t>();
    float* f = reinterpret_cast<float*>(buf.data());
    for (size_t i = 0; i < bytes / sizeof(float); ++i)
      f[i] = pattern == 255 ? __builtin_nanf("") : static_cast<float>((i * 7 + pattern) % 17) - 8;
    return true;
  }
};

inline miopenDataType_t compute_type(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return miopenHalf;
    case 1:
      return miopenBFloat16;
    case 2:
      return miopenInt8;
    case 3:
      return enum_value<miopenDataType_t>(fdp, 9);
    default:
      return miopenFloat;
  }
}

inline int dim(FuzzedDataProvider& fdp) {
  return fdp.ConsumeIntegralInRange(fdp.ConsumeIntegralInRange(0, 15) == 0 ? 0 : 1, 8);
}

// A descriptor of 3-5 dims, packed, with a layout, or strided (small strides from the bytes).
inline void set_tensor(FuzzedDataProvider& fdp, Tensor& t, miopenDataType_t type, int nd = 0) {
  if (nd == 0) nd = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegralInRange(1, 5) : 4;
  std::array<int, 5> lens{}, strides{};
  size_t total = 1;
  for (int i = 0; i < nd; ++i) {
    lens[i] = dim(fdp);
    total *= static_cast<size_t>(std::max(lens[i], 1));
  }
  // Keep within kMaxElems by shrinking the last dims.
  for (int i = nd - 1; i >= 0 && total > kMaxElems; --i) {
    total /= static_cast<size_t>(std::max(lens[i], 1));
    lens[i] = 1;
  }
  switch (fdp.ConsumeIntegralInRange(0, 5)) {
    case 0: {
      for (int i = 0; i < nd; ++i)
        strides[i] = fdp.ConsumeIntegralInRange(0, 64);
      miopenSetTensorDescriptor(t.desc, type, nd, lens.data(), strides.data());
      break;
    }
    case 1: {
      const miopenTensorLayout_t layout =
          nd == 5 ? (fdp.ConsumeBool() ? miopenTensorNCDHW : miopenTensorNDHWC)
                  : (fdp.ConsumeBool() ? miopenTensorNCHW : miopenTensorNHWC);
      miopenSetNdTensorDescriptorWithLayout(t.desc, type, layout, lens.data(), nd);
      break;
    }
    default:
      miopenSetTensorDescriptor(t.desc, type, nd, lens.data(), nullptr);
      break;
  }
}

// A workspace whose claimed size is the one needed, a little less, zero, or any small size.
inline Bytes workspace(FuzzedDataProvider& fdp, size_t need) {
  size_t claim = need;
  switch (fdp.ConsumeIntegralInRange(0, 3)) {
    case 0:
      claim = need > 0 ? need - fdp.ConsumeIntegralInRange<size_t>(1, need) : 0;
      break;
    case 1:
      claim = fdp.ConsumeIntegralInRange<size_t>(0, 1 << 16);
      break;
    default:
      break;
  }
  return Bytes(std::min(claim, size_t{1} << 24));
}

inline void* ws_ptr(FuzzedDataProvider& fdp, Bytes& ws) {
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) return nullptr;  // a null buffer with its size
  return ws.empty() ? nullptr : ws.data();
}

// The layer families (fuzz_compute_layers.cpp).
void tensor_ops(FuzzedDataProvider& fdp, miopenHandle_t h);
void lrn(FuzzedDataProvider& fdp, miopenHandle_t h);
void reduction(FuzzedDataProvider& fdp, miopenHandle_t h);
void pooling(FuzzedDataProvider& fdp, miopenHandle_t h);
// Fusion plans and miopenConvolutionBiasActivationForward (fuzz_compute_fusion.cpp).
void fusion(FuzzedDataProvider& fdp, miopenHandle_t h);

}  // namespace anydnn::fuzz::compute
