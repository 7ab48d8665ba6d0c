#include "core/errors.hpp"

#include <cstring>

namespace anydnn {

namespace {
const char* basename_of(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}
}  // namespace

Error::Error(miopenStatus_t status, std::string message, const char* file, int line)
    : status_(status), message_(std::move(message)) {
  what_ = std::string(basename_of(file)) + ":" + std::to_string(line) + ": " + message_;
}

void throw_error(miopenStatus_t status, const std::string& message, const char* file, int line) {
  throw Error(status, message, file, line);
}

const char* status_name(miopenStatus_t status) {
  switch (status) {
    case miopenStatusSuccess:
      return "miopenStatusSuccess";
    case miopenStatusNotInitialized:
      return "miopenStatusNotInitialized";
    case miopenStatusInvalidValue:
      return "miopenStatusInvalidValue";
    case miopenStatusBadParm:
      return "miopenStatusBadParm";
    case miopenStatusAllocFailed:
      return "miopenStatusAllocFailed";
    case miopenStatusInternalError:
      return "miopenStatusInternalError";
    case miopenStatusNotImplemented:
      return "miopenStatusNotImplemented";
    case miopenStatusUnknownError:
      return "miopenStatusUnknownError";
    case miopenStatusUnsupportedOp:
      return "miopenStatusUnsupportedOp";
    case miopenStatusGpuOperationsSkipped:
      return "miopenStatusGpuOperationsSkipped";
    case miopenStatusVersionMismatch:
      return "miopenStatusVersionMismatch";
  }
  return "unknown miopenStatus_t";
}

}  // namespace anydnn
