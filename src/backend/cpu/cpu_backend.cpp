// The CPU backend: host memory, OpenMP threads, wall-clock timing.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <string>

#include "backend/backend.hpp"
#include "backend/cpu/bn_registry.hpp"
#include "backend/cpu/conv_bias.hpp"
#include "backend/cpu/conv_registry.hpp"
#include "backend/cpu/dropout.hpp"
#include "backend/cpu/rnn/rnn_kernels.hpp"
#include "backend/cpu/tensor_ops.hpp"
#include "core/float_types.hpp"
#include "solver/conv_registry.hpp"

namespace anydnn {

namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const Config& config)
      :  // The kernels' instruction set and the thread count decide the timings, so both name the
         // device whose find records apply.
        device_id_("cpu-" + std::string(cpu_isa_name(config.cpu_isa)) + "-" +
                   std::to_string(config.num_threads) + "t"),
        conv_solvers_(cpu::make_conv_registry()),
        bn_solvers_(cpu::make_bn_registry()),
        threads_(config.num_threads),
        isa_(config.cpu_isa),
        rnn_kernels_(config.cpu_isa, config.num_threads),
        dropout_kernels_(config.num_threads) {}

  BackendKind kind() const override { return BackendKind::Cpu; }
  std::string device_id() const override { return device_id_; }
  const ConvSolverRegistry& conv_solvers() const override { return conv_solvers_; }
  const BnSolverRegistry& bn_solvers() const override { return bn_solvers_; }
  void* stream() const override { return stream_; }
  void set_stream(void* stream) override { stream_ = stream; }
  float run_timed(const std::function<void()>& work) override {
    const auto start = std::chrono::steady_clock::now();
    work();
    const auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<float, std::milli>(stop - start).count();
  }
  void synchronize() override {}
  void conv_bias_forward(const TensorDescriptor& b_desc, const void* b,
                         const TensorDescriptor& y_desc, void* y, float alpha,
                         float beta) override {
    cpu::conv_bias_forward(b_desc, b, y_desc, y, alpha, beta, threads_);
  }
  void conv_bias_backward(const TensorDescriptor& dy_desc, const void* dy,
                          const TensorDescriptor& db_desc, void* db, float alpha,
                          float beta) override {
    cpu::conv_bias_backward(dy_desc, dy, db_desc, db, alpha, beta, threads_);
  }
  RnnKernels& rnn_kernels() override { return rnn_kernels_; }
  DropoutKernels& dropout_kernels() override { return dropout_kernels_; }
  DeviceBuffer allocate(size_t bytes) override {
    constexpr std::align_val_t kAlign{64};
    return DeviceBuffer(::operator new(bytes == 0 ? 1 : bytes, kAlign),
                        [](void* p) { ::operator delete(p, kAlign); });
  }
  void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha,
                   float beta) override {
    cpu::scale_blend(desc, src, dst, alpha, beta, threads_);
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
  BnSolverRegistry bn_solvers_;
  void* stream_ = nullptr;
  int threads_ = 1;
  CpuIsa isa_ = CpuIsa::Generic;
  cpu::CpuRnnKernels rnn_kernels_;
  cpu::CpuDropoutKernels dropout_kernels_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Config& config) {
  return std::make_unique<CpuBackend>(config);
}

}  // namespace anydnn
