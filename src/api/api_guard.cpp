#include "api/api_guard.hpp"

#include "api/api_objects.hpp"

namespace anydnn::api {

namespace {
// anydnnGetLastErrorString's record: per thread (as cuDNN's), so no lock and no thread reads
// another's reason. Its size is bounded by the reasons themselves (one line each).
thread_local std::string last_error;
}  // namespace

const std::string& last_error_string() noexcept {
  return last_error;
}

void log_failure(const Config& config, const char* function, const std::string& what,
                 const std::string* reason) noexcept {
  try {
    last_error = std::string(function) + ": " + (reason != nullptr ? *reason : what);
  } catch (...) {
    last_error.clear();  // out of memory: an empty reason beats a stale one
  }
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
