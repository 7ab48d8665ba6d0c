#include "device_buffer.hpp"

#include <miopen/anydnn.h>

#include <iostream>
#include <utility>

#if ANYDNN_DRIVER_CUDA
#include <cuda_runtime.h>
#endif

namespace anydnn::driver {

namespace {

#if ANYDNN_DRIVER_CUDA
// Reports a failed CUDA call and maps it to the status the driver exits with.
miopenStatus_t cuda_status(cudaError_t err, const char* what, size_t bytes) {
  if (err == cudaSuccess) return miopenStatusSuccess;
  std::cerr << "MIOpenDriver: " << what << " (" << bytes
            << " bytes) failed: " << cudaGetErrorString(err) << std::endl;
  return err == cudaErrorMemoryAllocation ? miopenStatusAllocFailed : miopenStatusInternalError;
}
#endif

}  // namespace

miopenStatus_t memory_of(miopenHandle_t handle, Memory& memory) {
  anydnnBackend_t backend = anydnnBackendCpu;
  const miopenStatus_t rc = anydnnGetBackend(handle, &backend);
  if (rc != miopenStatusSuccess) {
    std::cerr << "MIOpenDriver: cannot read the handle's backend, status = " << rc << std::endl;
    return rc;
  }
  if (backend == anydnnBackendCpu) {
    memory = Memory::Host;
    return miopenStatusSuccess;
  }
#if ANYDNN_DRIVER_CUDA
  if (backend == anydnnBackendCuda) {
    memory = Memory::Cuda;
    return miopenStatusSuccess;
  }
#endif
  std::cerr << "MIOpenDriver: the handle's backend (" << static_cast<int>(backend)
            << ") needs device buffers this driver was built without" << std::endl;
  return miopenStatusNotImplemented;
}

miopenStatus_t synchronize(Memory memory) {
#if ANYDNN_DRIVER_CUDA
  if (memory == Memory::Cuda)
    return cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize", 0);
#endif
  (void)memory;
  return miopenStatusSuccess;
}

DeviceBuffer::~DeviceBuffer() {
  release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : memory_(o.memory_),
      host_(std::exchange(o.host_, nullptr)),
      scratch_(std::move(o.scratch_)),
      device_(std::exchange(o.device_, nullptr)),
      size_(std::exchange(o.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    memory_ = o.memory_;
    host_ = std::exchange(o.host_, nullptr);
    scratch_ = std::move(o.scratch_);
    device_ = std::exchange(o.device_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

void DeviceBuffer::release() {
#if ANYDNN_DRIVER_CUDA
  if (device_ != nullptr) cudaFree(device_);
#endif
  device_ = nullptr;
  host_ = nullptr;
  scratch_.clear();
  size_ = 0;
}

miopenStatus_t DeviceBuffer::mirror(Memory memory, HostTensor& host) {
  release();
  memory_ = memory;
  host_ = &host;
  size_ = host.bytes.size();
#if ANYDNN_DRIVER_CUDA
  if (memory == Memory::Cuda && size_ > 0)
    return cuda_status(cudaMalloc(&device_, size_), "cudaMalloc", size_);
#endif
  return miopenStatusSuccess;
}

miopenStatus_t DeviceBuffer::scratch(Memory memory, size_t bytes) {
  release();
  memory_ = memory;
  size_ = bytes;
#if ANYDNN_DRIVER_CUDA
  if (memory == Memory::Cuda) {
    if (bytes == 0) return miopenStatusSuccess;
    miopenStatus_t rc = cuda_status(cudaMalloc(&device_, bytes), "cudaMalloc", bytes);
    if (rc == miopenStatusSuccess)
      rc = cuda_status(cudaMemset(device_, 0, bytes), "cudaMemset", bytes);
    // cudaMemset may still run when the library starts on a stream of its own.
    if (rc == miopenStatusSuccess) rc = synchronize(memory_);
    return rc;
  }
#endif
  scratch_.assign(bytes, 0);
  return miopenStatusSuccess;
}

void* DeviceBuffer::data() const {
  if (size_ == 0) return nullptr;
  if (memory_ == Memory::Cuda) return device_;
  // Read on every call: the host bytes may have been reassigned (same size) since mirror().
  if (host_ != nullptr) return host_->data();
  return const_cast<uint8_t*>(scratch_.data());
}

miopenStatus_t DeviceBuffer::upload() const {
#if ANYDNN_DRIVER_CUDA
  if (memory_ == Memory::Cuda && host_ != nullptr && size_ > 0)
    return cuda_status(cudaMemcpy(device_, host_->data(), size_, cudaMemcpyHostToDevice),
                       "cudaMemcpy to the device", size_);
#endif
  return miopenStatusSuccess;
}

miopenStatus_t DeviceBuffer::download() const {
#if ANYDNN_DRIVER_CUDA
  if (memory_ == Memory::Cuda && host_ != nullptr && size_ > 0) {
    // The library may have queued the work on a stream of its own: wait for all of it.
    miopenStatus_t rc = synchronize(memory_);
    if (rc == miopenStatusSuccess)
      rc = cuda_status(cudaMemcpy(host_->data(), device_, size_, cudaMemcpyDeviceToHost),
                       "cudaMemcpy from the device", size_);
    return rc;
  }
#endif
  return miopenStatusSuccess;
}

miopenStatus_t DeviceBuffer::poison() const {
  if (host_ != nullptr) host_->poison();
#if ANYDNN_DRIVER_CUDA
  // 0xFF bytes, the pattern HostTensor::poison uses (NaN in fp32, fp16 and bf16).
  if (memory_ == Memory::Cuda && size_ > 0) {
    const miopenStatus_t rc = cuda_status(cudaMemset(device_, 0xff, size_), "cudaMemset", size_);
    return rc == miopenStatusSuccess ? synchronize(memory_) : rc;
  }
#endif
  return miopenStatusSuccess;
}

}  // namespace anydnn::driver
