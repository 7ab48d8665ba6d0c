#include "core/handle.hpp"

namespace anydnn {

Handle::Handle(const Config& config, void* stream) : config_(config) {
  if (config_.backend == BackendKind::Cuda) {
    backend_ = make_cuda_backend(config_, stream);
  } else {
    backend_ = make_cpu_backend(config_);
    backend_->set_stream(stream);
  }
  find_db_ = std::make_unique<FindDb>(config_, backend_->device_id());
}

}  // namespace anydnn
