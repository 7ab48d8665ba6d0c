// The CUDA backend (cuda_backend.hpp). Kernels live in files mirroring backend/cpu: conv/ and
// bn/ solvers, the conv registry, conv_bias (the ConvKernels), tensor_ops, dropout, rnn/.
#include "backend/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "backend/cuda/conv_registry.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/tensor_ops.hpp"

namespace anydnn {

namespace cuda {

namespace {

// "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3": find-db keys and log fields stay one word.
std::string word(const char* name) {
  std::string s;
  for (const char* c = name; *c != '\0'; ++c)
    s += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  return s;
}

// Peak rates from the device's properties: SM count and clock times what one SM does per clock.
// Per-SM rates by architecture (NVIDIA's whitepapers): fp32 FMA lanes 64 on sm_80, 128 on sm_86
// and newer; dense fp16 tensor-core FMAs 1024 per clock on sm_8x, 2048 on sm_90 and newer; TF32
// half the fp16 rate. DRAM: two transfers per memory clock over the bus width.
DeviceRates device_rates(int device, const cudaDeviceProp& prop) {
  int clock_khz = 0, mem_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  const int sm = prop.major * 10 + prop.minor;
  const double ghz = clock_khz > 0 ? clock_khz * 1e-6 : 1.5;
  const double sms = std::max(prop.multiProcessorCount, 1);
  const double fp32_lanes = sm == 80 ? 64 : 128;
  const double tensor_fma = sm >= 90 ? 2048 : sm >= 80 ? 1024 : 512;
  DeviceRates r;
  r.sms = sms;
  r.fp32_tflops = sms * ghz * fp32_lanes * 2 / 1e3;
  r.tensor16_tflops = sms * ghz * tensor_fma * 2 / 1e3;
  r.tf32_tflops = r.tensor16_tflops / 2;
  r.dram_gbs = mem_khz > 0 && bus_bits > 0 ? 2.0 * mem_khz * 1e3 * bus_bits / 8 / 1e9 : 1000;
  return r;
}

}  // namespace

CudaBackend::CudaBackend(const Config& config, void* stream)
    : stream_(static_cast<cudaStream_t>(stream)),
      conv_solvers_(make_conv_registry()),
      conv_kernels_(make_conv_kernels(*this)) {
  registries_.wire(primitives_);
  primitives_.add<const ConvSolverRegistry>(&conv_solvers_);
  primitives_.add<const ConvKernels>(conv_kernels_.get());
  primitives_.add<RnnKernels>(&rnn_kernels_);
  primitives_.add<DropoutKernels>(&dropout_kernels_);
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  ANYDNN_CHECK(err == cudaSuccess && count > 0, miopenStatusNotInitialized,
               "MIOPEN_BACKEND=cuda but no usable CUDA device: "
                   << (err == cudaSuccess ? "no devices" : cudaGetErrorString(err)));
  check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
  check_cuda(cudaGetDeviceProperties(&prop_, device_), "cudaGetDeviceProperties");
  rates_ = device_rates(device_, prop_);
  // Architecture, SM count and model decide the timings, so all three name the device whose
  // find-db records apply.
  device_id_ = "cuda-sm" + std::to_string(prop_.major) + std::to_string(prop_.minor) + "-" +
               std::to_string(prop_.multiProcessorCount) + "cu-" + word(prop_.name);
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  check_cublas(cublasCreate(&cublas_), "cublasCreate");
  // The handle's own memory pool keeps what it has reserved (release threshold: never): with
  // the device's default pool (threshold 0) every synchronisation hands the memory back, and
  // each call then pays for mapping fresh pages (batch norm took 2x longer).
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device_;
  check_cuda(cudaMemPoolCreate(&pool_, &props), "cudaMemPoolCreate");
  uint64_t keep = UINT64_MAX;
  check_cuda(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep),
             "cudaMemPoolSetAttribute");
  check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
  // Cheap: the library is looked for and the cuDNN handle made on the first cuDNN solver's use.
  cudnn_ = std::make_unique<CudnnState>(config, stream_);
  // Synchronous, once per handle (256 KiB): every later stream sees it written.
  std::vector<float> index(kChannelIndexCount);
  for (size_t i = 0; i < index.size(); ++i)
    index[i] = static_cast<float>(i);
  check_cuda(cudaMalloc(&channel_indices_, index.size() * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMemcpy(channel_indices_, index.data(), index.size() * sizeof(float),
                        cudaMemcpyHostToDevice),
             "cudaMemcpy");
}

CudaBackend::~CudaBackend() {
  // The handle may be destroyed from a thread whose current device is another one: release on
  // the handle's device, then give the thread its device back.
  int current = -1;
  const bool switched = cudaGetDevice(&current) == cudaSuccess && current != device_ &&
                        cudaSetDevice(device_) == cudaSuccess;
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  cudnn_.reset();  // its cuDNN handle, on this device too
  if (channel_indices_ != nullptr) cudaFree(channel_indices_);
  // Outstanding allocations keep the pool alive until they are freed (CUDA defers the release).
  if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (switched) cudaSetDevice(current);
}

void CudaBackend::make_current() {
  int current = -1;
  const cudaError_t err = cudaGetDevice(&current);
  if (err != cudaSuccess || current != device_) check_cuda(cudaSetDevice(device_), "cudaSetDevice");
}

void CudaBackend::set_stream(void* stream) {
  stream_ = static_cast<cudaStream_t>(stream);
  check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
  cudnn_->set_stream(stream_);
}

float CudaBackend::run_timed(const std::function<void()>& work) {
  check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
  work();
  check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0.0f;
  check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return ms;
}

void CudaBackend::synchronize() {
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

DeviceBuffer CudaBackend::allocate(size_t bytes) {
  // Stream-ordered: scratch taken and given back inside one call (BN partials, blending
  // buffers, Find workspaces) costs no device-wide synchronisation, which cudaFree would.
  // The memory is usable by work enqueued on this stream after the allocation, and is freed
  // after the work enqueued on it before the free.
  void* p = nullptr;
  cudaStream_t s = stream_;
  check_cuda(cudaMallocFromPoolAsync(&p, bytes == 0 ? 1 : bytes, pool_, s),
             "cudaMallocFromPoolAsync");
  return DeviceBuffer(p, [s](void* q) { cudaFreeAsync(q, s); });
}

void CudaBackend::copy(void* dst, const void* src, size_t bytes, CopyKind kind) {
  if (bytes == 0) return;
  const cudaMemcpyKind k = kind == CopyKind::HostToDevice     ? cudaMemcpyHostToDevice
                           : kind == CopyKind::DeviceToHost   ? cudaMemcpyDeviceToHost
                           : kind == CopyKind::DeviceToDevice ? cudaMemcpyDeviceToDevice
                                                              : cudaMemcpyDefault;
  check_cuda(cudaMemcpyAsync(dst, src, bytes, k, stream_), "cudaMemcpyAsync");
  // The host side of a copy must be reusable (or readable) when this returns.
  if (kind != CopyKind::DeviceToDevice) synchronize();
}

void CudaBackend::fill_zero(void* dst, size_t bytes) {
  if (bytes != 0) check_cuda(cudaMemsetAsync(dst, 0, bytes, stream_), "cudaMemsetAsync");
}

}  // namespace cuda

bool cuda_device_present() {
  // Asked once: initialising the CUDA runtime costs tens of milliseconds, and the answer does
  // not change while the process runs.
  static const bool present = [] {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }();
  return present;
}

std::unique_ptr<Backend> make_cuda_backend(const Config& config, void* stream) {
  return std::make_unique<cuda::CudaBackend>(config, stream);
}

}  // namespace anydnn
