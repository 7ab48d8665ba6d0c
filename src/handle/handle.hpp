// The library handle (miopenHandle_t). It owns everything with a lifetime longer than one call:
// the configuration (environment read once), the backend and its stream, profiling state, the
// invoker cache that connects Find to the legacy Convolution* calls, and the find-db. It sits
// above backend/, db/ and solver/ (it owns one of each), so core/ below them stays free of them.
#pragma once

#include <memory>

#include "backend/backend.hpp"
#include "conv/conv_invoker_cache.hpp"
#include "conv/conv_solver.hpp"
#include "core/config.hpp"
#include "db/find_db.hpp"

namespace anydnn {

class Handle {
 public:
  // Creates the backend named by config.backend; `stream` is a cudaStream_t for CUDA (or
  // nullptr for the default stream); the CPU backend keeps it only to hand it back.
  Handle(const Config& config, void* stream);

  const Config& config() const { return config_; }
  Backend& backend() { return *backend_; }
  ExecutionContext context() { return ExecutionContext{config_, *backend_}; }

  void enable_profiling(bool on) { profiling_ = on; }
  bool profiling_enabled() const { return profiling_; }
  // Time of the last primitive run through this handle, in ms (recorded while profiling).
  float kernel_time() const { return kernel_time_ms_; }
  void record_kernel_time(float ms) {
    if (profiling_) kernel_time_ms_ = ms;
  }
  // Runs one primitive's device work. While profiling, timed with the backend's events, which
  // waits for it (MIOpen's handle does the same to answer miopenGetKernelTime), and the time is
  // returned; otherwise only enqueued: the call returns without waiting for the GPU and 0 comes
  // back. Find's measurements call backend().run_timed directly.
  template <class F>
  float run_primitive(const F& work) {
    if (profiling_) return backend_->run_timed(work);
    work();
    return 0.0f;
  }

  ConvInvokerCache& conv_invokers() { return conv_invokers_; }
  FindDb& find_db() { return *find_db_; }

 private:
  Config config_;
  std::unique_ptr<Backend> backend_;
  bool profiling_ = false;
  float kernel_time_ms_ = 0.0f;
  ConvInvokerCache conv_invokers_;
  std::unique_ptr<FindDb> find_db_;
};

}  // namespace anydnn
