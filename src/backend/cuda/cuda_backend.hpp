// The CUDA backend: device pointers, a cudaStream_t per handle, CUDA-event timing, one cuBLAS
// handle bound to that stream. Solvers reach it through cuda::backend_of(ctx).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "backend/common/primitive_registries.hpp"
#include "backend/cuda/conv/cost_model.hpp"
#include "backend/cuda/cudnn/cudnn_state.hpp"
#include "backend/cuda/dropout.hpp"
#include "backend/cuda/rnn/rnn_kernels.hpp"
#include "conv/conv_kernels.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cuda {

class CudaBackend final : public Backend {
 public:
  CudaBackend(const Config& config, void* stream);
  ~CudaBackend() override;

  BackendKind kind() const override { return BackendKind::Cuda; }
  std::string device_id() const override { return device_id_; }
  const Primitives& primitives() const override { return primitives_; }
  void* stream() const override { return stream_; }
  void set_stream(void* stream) override;
  void make_current() override;
  float run_timed(const std::function<void()>& work) override;
  void synchronize() override;

  DeviceBuffer allocate(size_t bytes) override;
  void copy(void* dst, const void* src, size_t bytes, CopyKind kind) override;
  void fill_zero(void* dst, size_t bytes) override;

  // --- for the CUDA solvers and kernels ---
  cudaStream_t cuda_stream() const { return stream_; }
  // Bound to cuda_stream(); default math mode (TF32 only where a solver asks for it).
  cublasHandle_t cublas() const { return cublas_; }
  const cudaDeviceProp& properties() const { return prop_; }
  int sm_version() const { return prop_.major * 10 + prop_.minor; }  // 90 for H100
  // Peak rates the solvers' cost models start from (conv/cost_model.hpp).
  const DeviceRates& rates() const { return rates_; }
  // 0, 1, 2, ... as floats, kChannelIndexCount of them, in device memory for the backend's
  // life: the broadcast vector through which CUTLASS's fused epilogue learns the output channel
  // of each value it stores (conv/implicit_gemm_tc_epilogue.cu). Written once, never changed.
  static constexpr size_t kChannelIndexCount = 65536;
  const float* channel_indices() const { return channel_indices_; }
  // cuDNN, found and opened on first use (the cuDNN solvers' engines: cudnn/cudnn_state.hpp).
  CudnnState& cudnn() const { return *cudnn_; }

 private:
  cudaStream_t stream_ = nullptr;
  ConvSolverRegistry conv_solvers_;
  PrimitiveRegistries<BackendKind::Cuda> registries_;
  std::unique_ptr<ConvKernels> conv_kernels_;
  Primitives primitives_;
  int device_ = 0;
  cudaDeviceProp prop_{};
  std::string device_id_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudaMemPool_t pool_ = nullptr;  // library scratch (allocate())
  float* channel_indices_ = nullptr;
  DeviceRates rates_;
  std::unique_ptr<CudnnState> cudnn_;
  CudaRnnKernels rnn_kernels_{*this};
  CudaDropoutKernels dropout_kernels_{*this};
};

// Bias and blend kernels on the backend's stream (conv_bias.cu).
std::unique_ptr<ConvKernels> make_conv_kernels(const CudaBackend& backend);

// The CUDA backend of a solver's context (only CUDA solvers call it: their registry is only
// reachable through a CudaBackend).
inline CudaBackend& backend_of(const ExecutionContext& ctx) {
  return static_cast<CudaBackend&>(ctx.backend);
}

}  // namespace anydnn::cuda
