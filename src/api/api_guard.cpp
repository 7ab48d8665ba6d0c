#include "api/api_guard.hpp"

#include "api/api_objects.hpp"

namespace anydnn::api {

void log_failure(const Config& config, const char* function, const std::string& what) noexcept {
  try {
    log_message(config, LogLevel::Error, function, "MIOpen Error: " + what);
  } catch (...) {
    // Logging is best effort; the status code still reaches the caller.
  }
}

void throw_not_implemented(const char* function, const char* issue) {
  ANYDNN_THROW(miopenStatusNotImplemented, function << " is not implemented yet (planned in the "
                                                    << issue << " work; see docs/api-status.md)");
}

const Config& config_of(miopenHandle_t handle) noexcept {
  if (handle != nullptr) {
    const auto* o = static_cast<const HandleObject*>(handle);
    if (o->tag == ObjectTag::Handle) return o->handle.config();
  }
  return process_config();
}

}  // namespace anydnn::api
