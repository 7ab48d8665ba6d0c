// Errors inside the library are exceptions carrying a miopenStatus_t; the C shims in src/api
// turn them into status codes (see api_guard.hpp). Nothing here is allowed past the C boundary.
#pragma once

#include <miopen/miopen.h>

#include <exception>
#include <sstream>
#include <string>

namespace anydnn {

class Error : public std::exception {
 public:
  Error(miopenStatus_t status, std::string message, const char* file, int line);
  miopenStatus_t status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }
  // "<file>:<line>: <message>", the form MIOpen logs.
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  miopenStatus_t status_;
  std::string message_;
  std::string what_;
};

[[noreturn]] void throw_error(miopenStatus_t status, const std::string& message, const char* file,
                              int line);

const char* status_name(miopenStatus_t status);

}  // namespace anydnn

// Streams are allowed in the message: ANYDNN_THROW(miopenStatusBadParm, "n = " << n).
#define ANYDNN_THROW(status, msg)                                                \
  do {                                                                           \
    std::ostringstream anydnn_throw_ss_;                                         \
    anydnn_throw_ss_ << msg;                                                     \
    ::anydnn::throw_error((status), anydnn_throw_ss_.str(), __FILE__, __LINE__); \
  } while (false)

#define ANYDNN_CHECK(cond, status, msg)     \
  do {                                      \
    if (!(cond)) ANYDNN_THROW(status, msg); \
  } while (false)

#define ANYDNN_CHECK_BADPARM(cond, msg) ANYDNN_CHECK(cond, miopenStatusBadParm, msg)
