// The library handle (handle.hpp): picks and creates the backend, opens the find-db.
#include "handle/handle.hpp"

namespace anydnn {

Handle::Handle(const Config& config, void* stream) : config_(config) {
  // MIOPEN_BACKEND decides when set; otherwise a GPU, when this build can use one, as a MIOpen
  // client expects (its buffers are device memory).
  if (!config_.backend_from_env)
    config_.backend = cuda_device_present() ? BackendKind::Cuda : BackendKind::Cpu;
  if (config_.backend == BackendKind::Cuda) {
    backend_ = make_cuda_backend(config_, stream);
  } else {
    backend_ = make_cpu_backend(config_);
    backend_->set_stream(stream);
  }
  find_db_ = std::make_unique<FindDb>(config_, backend_->device_id());
}

}  // namespace anydnn
