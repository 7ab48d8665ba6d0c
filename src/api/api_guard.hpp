// The one try/catch of every C entry point: runs the body and turns whatever it throws into a
// miopenStatus_t, logging "MIOpen Error: <file>:<line>: <reason>" at the Error level. Nothing
// escapes across the C boundary.
#pragma once

#include <miopen/miopen.h>

#include <exception>
#include <new>
#include <string>

#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace anydnn::api {

// Logs the failure ("MIOpen Error: <what>") and records "<function>: <reason>" as this thread's
// last error (anydnnGetLastErrorString); the reason is `what` unless given (an Error's message,
// without the file:line prefix of its what()).
void log_failure(const Config& config, const char* function, const std::string& what,
                 const std::string* reason = nullptr) noexcept;
const std::string& last_error_string() noexcept;

template <class F>
miopenStatus_t guard(const Config& config, const char* function, F&& body) noexcept {
  try {
    body();
    return miopenStatusSuccess;
  } catch (const Error& e) {
    log_failure(config, function, e.what(), &e.message());
    return e.status();
  } catch (const std::bad_alloc&) {
    log_failure(config, function, "out of memory");
    return miopenStatusAllocFailed;
  } catch (const std::exception& e) {
    log_failure(config, function, e.what());
    return miopenStatusUnknownError;
  } catch (...) {
    log_failure(config, function, "unknown exception");
    return miopenStatusUnknownError;
  }
}

// For API functions of a family whose issue has not landed yet.
[[noreturn]] void throw_not_implemented(const char* function, const char* issue);

// The configuration governing a call: the handle's when it is a live handle, else the process's.
const Config& config_of(miopenHandle_t handle) noexcept;

}  // namespace anydnn::api
