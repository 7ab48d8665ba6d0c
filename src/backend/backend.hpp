// What the library needs from a device backend. The handle owns one backend; everything
// device-specific (memory, timing, solver lists) goes through this interface, so common code
// never names a backend. backend/cpu and backend/cuda implement it with mirrored file names.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {

class ConvSolverRegistry;
class BnSolverRegistry;
class RnnKernels;
class DropoutKernels;

// Memory owned by a backend (host memory on the CPU, device memory on CUDA).
using DeviceBuffer = std::unique_ptr<void, std::function<void(void*)>>;

// Direction of Backend::copy. "Device" is the backend's memory (host memory on the CPU). Any:
// either side may be host or device memory (CUDA's unified addressing tells), for buffers
// clients may place on either, such as the dropout states.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice, Any };

class Backend {
 public:
  virtual ~Backend() = default;

  virtual BackendKind kind() const = 0;
  // Identifies the device in find-db keys and logs, e.g. "cpu-avx2-2t" or "cuda-sm90-132".
  virtual std::string device_id() const = 0;
  // Ordered convolution solvers of this backend (docs/adding-a-solver.md).
  virtual const ConvSolverRegistry& conv_solvers() const = 0;
  // Ordered batch-normalization solvers (backend/*/bn_registry.cpp).
  virtual const BnSolverRegistry& bn_solvers() const = 0;

  virtual void* stream() const = 0;
  virtual void set_stream(void* stream) = 0;
  // Runs `work` (which may enqueue asynchronous device work), waits for it and returns the
  // elapsed device time in milliseconds.
  virtual float run_timed(const std::function<void()>& work) = 0;
  virtual void synchronize() = 0;

  // Convolution bias (descriptors already validated by src/conv/conv_bias.cpp):
  //   forward:  y = alpha * (y + b[k]) + beta * y   (MIOpen's OpTensor-based definition)
  //   backward: db[k] = alpha * sum over n and spatial of dy[n, k, ...] + beta * db[k]
  virtual void conv_bias_forward(const TensorDescriptor& b_desc, const void* b,
                                 const TensorDescriptor& y_desc, void* y, float alpha,
                                 float beta) = 0;
  virtual void conv_bias_backward(const TensorDescriptor& dy_desc, const void* dy,
                                  const TensorDescriptor& db_desc, void* db, float alpha,
                                  float beta) = 0;

  // The kernels the RNN passes (rnn/rnn_passes.hpp, written once) drive: step GEMMs, gate
  // kernels, state moves (rnn/rnn_kernels.hpp).
  virtual RnnKernels& rnn_kernels() = 0;
  // The dropout kernel of the dropout API and of the dropout between RNN layers
  // (dropout/dropout_kernels.hpp).
  virtual DropoutKernels& dropout_kernels() = 0;

  // Scratch memory for the library's own use (e.g. a convolution result before blending). On
  // CUDA it is stream-ordered on the current stream: release it before that stream is destroyed
  // (library calls release theirs before returning).
  virtual DeviceBuffer allocate(size_t bytes) = 0;
  // dst = alpha * src + beta * dst over the logical elements of `desc` (both tensors laid out by
  // it); beta = 0 ignores dst's old contents, NaN included.
  virtual void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha,
                           float beta) = 0;

  // Memory moves for front-end code that must not touch device memory itself (RNN parameter
  // get/set, the dropout states, sequence packing). Ordered on the handle's stream; copies
  // from or to the host return once the host side may be reused. (The RNN's row moves, fills
  // and fp16 conversions are RnnKernels'.)
  virtual void copy(void* dst, const void* src, size_t bytes, CopyKind kind) = 0;
  virtual void fill_zero(void* dst, size_t bytes) = 0;
};

// True when this library has the CUDA backend and the CUDA runtime sees at least one device
// (asked once per process). Decides the default backend (core/handle.cpp).
bool cuda_device_present();

// CPU backend: host pointers, OpenMP threads, wall-clock timing.
std::unique_ptr<Backend> make_cpu_backend(const Config& config);

// CUDA backend; throws NotImplemented when the library was built without it, and
// NotInitialized when no usable GPU is present.
std::unique_ptr<Backend> make_cuda_backend(const Config& config, void* stream);

}  // namespace anydnn
