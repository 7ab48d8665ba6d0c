// The CPU backend: host memory, OpenMP threads, wall-clock timing.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <string>

#include "backend/backend.hpp"
#include "backend/cpu/conv_registry.hpp"
#include "backend/cpu/dropout.hpp"
#include "backend/cpu/rnn/rnn_backward.hpp"
#include "backend/cpu/rnn/rnn_forward.hpp"
#include "bn/bn_registry.hpp"
#include "conv/conv_kernels.hpp"
#include "core/float_types.hpp"
#include "solver/conv_solver.hpp"

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
        bn_solvers_(make_bn_registry<BackendKind::Cpu>()),
        conv_kernels_(cpu::make_conv_kernels(config.num_threads)),
        threads_(config.num_threads),
        isa_(config.cpu_isa) {
    primitives_.conv = &conv_solvers_;
    primitives_.bn = &bn_solvers_;
    primitives_.conv_kernels = conv_kernels_.get();
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
  void rnn_forward(const RnnShape& shape, const RnnForwardBuffers& buffers) override {
    cpu::rnn_forward(shape, buffers, isa_, threads_);
  }
  void rnn_backward_data(const RnnShape& shape, const RnnBackwardBuffers& buffers) override {
    cpu::rnn_backward_data(shape, buffers, isa_, threads_);
  }
  void rnn_backward_weights(const RnnShape& shape, const RnnBackwardBuffers& buffers) override {
    cpu::rnn_backward_weights(shape, buffers, threads_);
  }
  void dropout_apply(const TensorDescriptor& in_desc, const void* in,
                     const TensorDescriptor& out_desc, void* out, uint8_t* mask, bool generate,
                     uint64_t seed, uint64_t counter, float dropout) override {
    cpu::dropout_apply(in_desc, in, out_desc, out, mask, generate, seed, counter, dropout,
                       threads_);
  }
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
  void half_to_float(const uint16_t* src, size_t n, float* dst) override {
    in_chunks(n, [&](size_t i, size_t m) { anydnn::half_to_float(src + i, m, dst + i); });
  }
  void float_to_half(const float* src, size_t n, uint16_t* dst) override {
    in_chunks(n, [&](size_t i, size_t m) { anydnn::float_to_half(src + i, m, dst + i); });
  }
  void move_rows(const std::vector<RowMoves>& groups) override {
    for (const RowMoves& g : groups)
      for (const auto& [from, to] : g.rows) {
        if (g.src_half == g.dst_half) {
          const size_t es = g.src_half ? 2 : 4;
          std::memcpy(static_cast<char*>(g.dst) + to * es,
                      static_cast<const char*>(g.src) + from * es, g.width * es);
        } else if (g.src_half) {
          anydnn::half_to_float(static_cast<const uint16_t*>(g.src) + from, g.width,
                                static_cast<float*>(g.dst) + to);
        } else {
          anydnn::float_to_half(static_cast<const float*>(g.src) + from, g.width,
                                static_cast<uint16_t*>(g.dst) + to);
        }
      }
  }
  void fill(void* dst, size_t n, float value, bool half) override {
    if (half)
      std::fill_n(static_cast<uint16_t*>(dst), n, anydnn::float_to_half(value));
    else
      std::fill_n(static_cast<float*>(dst), n, value);
  }

 private:
  // f(first, count) over n values in chunks, on the backend's threads (fp16 RNN staging
  // converts whole tensors).
  template <class F>
  void in_chunks(size_t n, F&& f) const {
    constexpr size_t kChunk = 16384;
    const long chunks = static_cast<long>((n + kChunk - 1) / kChunk);
#pragma omp parallel for num_threads(threads_) if (chunks > 4)
    for (long c = 0; c < chunks; ++c) {
      const size_t i = static_cast<size_t>(c) * kChunk;
      f(i, std::min(kChunk, n - i));
    }
  }

  std::string device_id_;
  ConvSolverRegistry conv_solvers_;
  BnSolverRegistry bn_solvers_;
  std::unique_ptr<ConvKernels> conv_kernels_;
  Primitives primitives_;
  void* stream_ = nullptr;
  int threads_ = 1;
  CpuIsa isa_ = CpuIsa::Generic;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Config& config) {
  return std::make_unique<CpuBackend>(config);
}

}  // namespace anydnn
