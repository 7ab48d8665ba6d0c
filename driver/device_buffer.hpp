// The driver's tensors on the handle's device. MIOpen's API takes device pointers for every
// tensor, workspace and reserve buffer: on the CPU backend that is host memory, so a
// DeviceBuffer aliases its HostTensor's bytes (no copy, no cost); on the CUDA backend it owns a
// cudaMalloc'd mirror that upload() / download() keep in step with the host bytes, where the
// random inputs are drawn and the reference reads the results.
//
// Errors (allocation, copies) are printed on stderr and returned as a miopenStatus_t, which the
// drivers return as their exit code.
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "host_buffer.hpp"

namespace anydnn::driver {

enum class Memory { Host, Cuda };

// The memory the handle's backend reads and writes. Fails (with a message) for a CUDA handle
// when the driver was built without the CUDA runtime.
miopenStatus_t memory_of(miopenHandle_t handle, Memory& memory);

// Waits until the device has finished all queued work (wall-clock timing, downloads); nothing to
// wait for on the host.
miopenStatus_t synchronize(Memory memory);

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;

  // Mirrors `host`, which must outlive this buffer and keep its size. Host: aliases its bytes;
  // Cuda: allocates as many device bytes, not yet filled (call upload()).
  miopenStatus_t mirror(Memory memory, HostTensor& host);
  // Scratch space without a host view (workspace, reserve), zero-filled on either side.
  miopenStatus_t scratch(Memory memory, size_t bytes);

  // The pointer to hand to the library; null when the buffer has no bytes (as MIOpen clients
  // pass for an empty workspace) or was never set up.
  void* data() const;
  size_t size() const { return size_; }

  // Host bytes -> device, and back (after synchronising the device). No-ops on the host.
  miopenStatus_t upload() const;
  miopenStatus_t download() const;
  // NaN bytes in every float type (HostTensor::poison) on the device and on the host view, so
  // that an output the library leaves unwritten fails verification.
  miopenStatus_t poison() const;

 private:
  void release();

  Memory memory_ = Memory::Host;
  HostTensor* host_ = nullptr;    // mirror(): the host view
  std::vector<uint8_t> scratch_;  // scratch() on the host
  void* device_ = nullptr;        // Cuda: the device copy
  size_t size_ = 0;
};

}  // namespace anydnn::driver
