// C API: handle, errors, version.
#include <miopen/miopen.h>
#include <miopen/version.h>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "core/errors.hpp"

using namespace anydnn;
using namespace anydnn::api;

extern "C" const char* miopenGetErrorString(miopenStatus_t error_arg) {
  // Any int may arrive here (a status from elsewhere, a caller's guess): read it raw.
  const long long error = raw_enum(error_arg);
  switch (error) {
    case miopenStatusSuccess:
    case miopenStatusNotInitialized:
    case miopenStatusInvalidValue:
    case miopenStatusBadParm:
    case miopenStatusAllocFailed:
    case miopenStatusInternalError:
    case miopenStatusNotImplemented:
    case miopenStatusUnknownError:
    case miopenStatusUnsupportedOp:
    case miopenStatusGpuOperationsSkipped:
    case miopenStatusVersionMismatch:
      return status_name(static_cast<miopenStatus_t>(error));
  }
  return "Unknown error status";
}

extern "C" miopenStatus_t miopenGetVersion(size_t* major, size_t* minor, size_t* patch) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, major, minor, patch);
  return guard(cfg, __func__, [&] {
    deref_out(major, "major") = MIOPEN_VERSION_MAJOR;
    deref_out(minor, "minor") = MIOPEN_VERSION_MINOR;
    deref_out(patch, "patch") = MIOPEN_VERSION_PATCH;
  });
}

namespace {
miopenStatus_t create_handle(const char* fn, miopenHandle_t* handle, void* stream) {
  const Config& cfg = process_config();
  return guard(cfg, fn, [&] {
    auto& out = deref_out(handle, "handle");
    out = new HandleObject(cfg, stream);
  });
}
}  // namespace

extern "C" miopenStatus_t miopenCreate(miopenHandle_t* handle) {
  ANYDNN_LOG_API(process_config(), handle);
  return create_handle(__func__, handle, nullptr);
}

extern "C" miopenStatus_t miopenCreateWithStream(miopenHandle_t* handle,
                                                 miopenAcceleratorQueue_t stream) {
  ANYDNN_LOG_API(process_config(), handle, stream);
  return create_handle(__func__, handle, stream);
}

extern "C" miopenStatus_t miopenDestroy(miopenHandle_t handle) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle);
  return guard(cfg, __func__, [&] {
    deref(handle);
    delete static_cast<HandleObject*>(handle);
  });
}

extern "C" miopenStatus_t miopenSetStream(miopenHandle_t handle,
                                          miopenAcceleratorQueue_t streamID) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, streamID);
  return guard(cfg, __func__, [&] { deref(handle).backend().set_stream(streamID); });
}

extern "C" miopenStatus_t miopenGetStream(miopenHandle_t handle,
                                          miopenAcceleratorQueue_t* streamID) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, streamID);
  return guard(cfg, __func__, [&] {
    // The backend keeps the stream untyped; the header's type is cudaStream_t in
    // a CUDA build and void* otherwise.
    deref_out(streamID, "streamID") =
        static_cast<miopenAcceleratorQueue_t>(deref(handle).backend().stream());
  });
}

extern "C" miopenStatus_t miopenSetAllocator(miopenHandle_t handle,
                                             miopenAllocatorFunction allocator,
                                             miopenDeallocatorFunction deallocator,
                                             void* allocatorContext) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, reinterpret_cast<const void*>(allocator),
                 reinterpret_cast<const void*>(deallocator), allocatorContext);
  return guard(cfg, __func__, [&] {
    deref(handle);
    // The library never allocates device memory on the caller's behalf (workspaces are passed
    // in), so there is nothing to route through a custom allocator; accepted as in MIOpen.
    ANYDNN_CHECK_BADPARM((allocator == nullptr) == (deallocator == nullptr),
                         "allocator and deallocator must be given together");
  });
}

extern "C" miopenStatus_t miopenGetKernelTime(miopenHandle_t handle, float* time) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, time);
  return guard(cfg, __func__, [&] { deref_out(time, "time") = deref(handle).kernel_time(); });
}

extern "C" miopenStatus_t miopenEnableProfiling(miopenHandle_t handle, bool enable) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, enable);
  return guard(cfg, __func__, [&] { deref(handle).enable_profiling(enable); });
}
