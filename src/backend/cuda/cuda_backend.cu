// The CUDA backend: device pointers, a cudaStream_t per handle, CUDA-event timing.
// Convolution, batch-norm and RNN kernels arrive with the [cuda] issue; until then the registry
// is empty and every primitive reports NotImplemented on this backend.
#include <cuda_runtime.h>

#include <string>

#include "backend/backend.hpp"
#include "backend/cuda/bn_registry.hpp"
#include "backend/cuda/conv_registry.hpp"
#include "core/errors.hpp"
#include "solver/conv_registry.hpp"

namespace anydnn {

namespace {

void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    ANYDNN_THROW(miopenStatusInternalError, what << ": " << cudaGetErrorString(err));
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(const Config& config, void* stream)
      : stream_(static_cast<cudaStream_t>(stream)),
        conv_solvers_(cuda::make_conv_registry()),
        bn_solvers_(cuda::make_bn_registry()) {
    (void)config;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    ANYDNN_CHECK(err == cudaSuccess && count > 0, miopenStatusNotInitialized,
                 "MIOPEN_BACKEND=cuda but no usable CUDA device: "
                     << (err == cudaSuccess ? "no devices" : cudaGetErrorString(err)));
    check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    device_id_ = "cuda-sm" + std::to_string(prop.major) + std::to_string(prop.minor) + "-" +
                 std::to_string(prop.multiProcessorCount);
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~CudaBackend() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  BackendKind kind() const override { return BackendKind::Cuda; }
  std::string device_id() const override { return device_id_; }
  const ConvSolverRegistry& conv_solvers() const override { return conv_solvers_; }
  const BnSolverRegistry& bn_solvers() const override { return bn_solvers_; }
  void* stream() const override { return stream_; }
  void set_stream(void* stream) override { stream_ = static_cast<cudaStream_t>(stream); }
  float run_timed(const std::function<void()>& work) override {
    check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
    work();
    check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }
  void rnn_forward(const RnnShape&, const RnnForwardBuffers&) override {
    ANYDNN_THROW(miopenStatusNotImplemented, "RNN on the CUDA backend comes with the [cuda] issue");
  }
  void dropout_apply(const TensorDescriptor&, const void*, const TensorDescriptor&, void*, uint8_t*,
                     bool, uint64_t, uint64_t, float) override {
    ANYDNN_THROW(miopenStatusNotImplemented,
                 "dropout on the CUDA backend comes with the [cuda] issue");
  }
  void rnn_backward_data(const RnnShape&, const RnnBackwardBuffers&) override {
    ANYDNN_THROW(miopenStatusNotImplemented, "RNN on the CUDA backend comes with the [cuda] issue");
  }
  void rnn_backward_weights(const RnnShape&, const RnnBackwardBuffers&) override {
    ANYDNN_THROW(miopenStatusNotImplemented, "RNN on the CUDA backend comes with the [cuda] issue");
  }
  void synchronize() override {
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  void conv_bias_forward(const TensorDescriptor&, const void*, const TensorDescriptor&, void*,
                         float, float) override {
    ANYDNN_THROW(miopenStatusNotImplemented, "convolution bias on CUDA comes with the [cuda] work");
  }
  DeviceBuffer allocate(size_t bytes) override {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
    return DeviceBuffer(p, [](void* q) { cudaFree(q); });
  }
  void scale_blend(const TensorDescriptor&, const void*, void*, float, float) override {
    ANYDNN_THROW(miopenStatusNotImplemented, "tensor blending on CUDA comes with the [cuda] work");
  }
  void conv_bias_backward(const TensorDescriptor&, const void*, const TensorDescriptor&, void*,
                          float, float) override {
    ANYDNN_THROW(miopenStatusNotImplemented, "convolution bias on CUDA comes with the [cuda] work");
  }

 private:
  cudaStream_t stream_ = nullptr;
  ConvSolverRegistry conv_solvers_;
  BnSolverRegistry bn_solvers_;
  int device_ = 0;
  std::string device_id_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const Config& config, void* stream) {
  return std::make_unique<CudaBackend>(config, stream);
}

}  // namespace anydnn
