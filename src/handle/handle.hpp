// The library handle (miopenHandle_t). It owns everything with a lifetime longer than one call:
// the configuration (environment read once), the backend and its stream, profiling state, the
// find-db, and the families' per-handle state (conv's invoker cache that connects Find to the
// legacy Convolution* calls), kept by type so that the handle names no family. It sits beside
// the backend interface and above db/, below the families that use it.
#pragma once

#include <memory>
#include <mutex>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "backend/backend.hpp"
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

  FindDb& find_db() { return *find_db_; }

  // A family's state for the handle's lifetime, default-constructed on first use, e.g.
  // family_state<ConvInvokerCache>() (conv/conv_invoker_cache.hpp). The reference stays valid
  // until the handle is destroyed.
  template <class T>
  T& family_state() {
    std::lock_guard<std::mutex> lock(states_mutex_);
    for (const State& s : states_)
      if (s.type == std::type_index(typeid(T))) return *static_cast<T*>(s.object.get());
    auto object = std::make_shared<T>();
    states_.push_back({std::type_index(typeid(T)), object});
    return *object;
  }

 private:
  Config config_;
  std::unique_ptr<Backend> backend_;
  bool profiling_ = false;
  float kernel_time_ms_ = 0.0f;
  std::unique_ptr<FindDb> find_db_;
  struct State {
    std::type_index type;
    std::shared_ptr<void> object;
  };
  std::mutex states_mutex_;
  std::vector<State> states_;
};

}  // namespace anydnn
