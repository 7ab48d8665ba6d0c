// The CPU backend: host memory, OpenMP threads, wall-clock timing.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <string>

#include "backend/backend.hpp"
#include "backend/common/primitive_registries.hpp"
#include "backend/cpu/conv_registry.hpp"
#include "backend/cpu/dropout.hpp"
#include "backend/cpu/rnn/rnn_kernels.hpp"
#include "backend/cpu/tensor_ops.hpp"
#include "conv/conv_kernels.hpp"
#include "conv/conv_solver.hpp"
#include "core/float_types.hpp"

namespace anydnn {

namespace cpu {
// Bias and blend kernels on `threads` threads (conv_bias.cpp).
std::unique_ptr<ConvKernels> make_conv_kernels(int threads);
}  // namespace cpu

namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const Config& config)
      :  // The kernels' instruction set and the thread count decide the timings, so both name the
         // device whose find records apply.
        device_id_("cpu-" + std::string(cpu_isa_name(config.cpu_isa)) + "-" +
                   std::to_string(config.num_threads) + "t"),
        conv_solvers_(cpu::make_conv_registry()),
        conv_kernels_(cpu::make_conv_kernels(config.num_threads)),
        rnn_kernels_(config.cpu_isa, config.num_threads),
        dropout_kernels_(config.num_threads) {
    registries_.wire(primitives_);
    primitives_.add<const ConvSolverRegistry>(&conv_solvers_);
    primitives_.add<const ConvKernels>(conv_kernels_.get());
    primitives_.add<RnnKernels>(&rnn_kernels_);
    primitives_.add<DropoutKernels>(&dropout_kernels_);
  }

  BackendKind kind() const override { return BackendKind::Cpu; }
  std::string device_id() const override { return device_id_; }
  const Primitives& primitives() const override { return primitives_; }
  void* stream() const override { return stream_; }
  void set_stream(void* stream) override { stream_ = stream; }
  float run_timed(const std::function<void()>& work) override {
    const auto start = std::chrono::steady_clock::now();
    work();
    const auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<float, std::milli>(stop - start).count();
  }
  void synchronize() override {}
  DeviceBuffer allocate(size_t bytes) override {
    constexpr std::align_val_t kAlign{64};
    return DeviceBuffer(::operator new(bytes == 0 ? 1 : bytes, kAlign),
                        [](void* p) { ::operator delete(p, kAlign); });
  }
  void copy(void* dst, const void* src, size_t bytes, CopyKind) override {
    if (bytes != 0) std::memcpy(dst, src, bytes);
  }
  void fill_zero(void* dst, size_t bytes) override {
    if (bytes != 0) std::memset(dst, 0, bytes);
  }

 private:
  std::string device_id_;
  ConvSolverRegistry conv_solvers_;
  PrimitiveRegistries<BackendKind::Cpu> registries_;
  std::unique_ptr<ConvKernels> conv_kernels_;
  Primitives primitives_;
  void* stream_ = nullptr;
  cpu::CpuRnnKernels rnn_kernels_;
  cpu::CpuDropoutKernels dropout_kernels_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Config& config) {
  return std::make_unique<CpuBackend>(config);
}

}  // namespace anydnn
