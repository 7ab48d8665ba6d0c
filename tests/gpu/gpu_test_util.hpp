// Helpers of the GPU suite: device copies of host tensors, a CUDA backend built from a test
// Config (GpuBackend), and poisoning of device outputs (NaN in every float type, as
// HostTensor::poison).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "core/config.hpp"
#include "host_buffer.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn::test {

#define ASSERT_CUDA_OK(expr)                                                   \
  do {                                                                         \
    const cudaError_t err_ = (expr);                                           \
    ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(err_); \
  } while (false)

// Device memory holding a copy of a host tensor's bytes.
class DeviceTensor {
 public:
  DeviceTensor() = default;
  explicit DeviceTensor(size_t bytes) : bytes_(bytes) {
    if (cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes) != cudaSuccess) ptr_ = nullptr;
  }
  explicit DeviceTensor(const driver::HostTensor& h) : DeviceTensor(h.bytes.size()) { upload(h); }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  DeviceTensor(DeviceTensor&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  DeviceTensor& operator=(DeviceTensor&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DeviceTensor() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  void* data() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  void upload(const driver::HostTensor& h) {
    cudaMemcpy(ptr_, h.bytes.data(), h.bytes.size(), cudaMemcpyHostToDevice);
  }
  // Copies back into h (which must have this tensor's size); waits for the device first.
  void download(driver::HostTensor& h) const {
    cudaDeviceSynchronize();
    cudaMemcpy(h.bytes.data(), ptr_, h.bytes.size(), cudaMemcpyDeviceToHost);
  }
  // 0xFF bytes: NaN for fp32, fp16 and bf16 alike.
  void poison() { cudaMemset(ptr_, 0xFF, bytes_); }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

inline bool gpu_present() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// The current device's compute capability as 10 * major + minor (90 for an H100), 0 without one.
inline int cuda_sm_version() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return 0;
  return prop.major * 10 + prop.minor;
}

// A CUDA backend of a default Config and the execution context over both, for the tests that run
// a family's solvers alone (one fixture for all of them).
struct GpuBackend {
  Config cfg;
  std::unique_ptr<Backend> backend;
  GpuBackend() : backend(make_cuda_backend(cfg, nullptr)) {}
  ExecutionContext ctx() const { return ExecutionContext{cfg, *backend}; }
};

// Each GPU test starts with this: the suite only runs where a GPU is (label gpu), so a missing
// device is a failure, not a skip.
#define REQUIRE_GPU() ASSERT_TRUE(::anydnn::test::gpu_present()) << "no CUDA device"

}  // namespace anydnn::test
