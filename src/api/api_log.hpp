// MIOPEN_ENABLE_LOGGING: one block per API call, in MIOpen's format (docs/log-formats.md):
//   MIOpen(CPU): miopenStatus_t miopenConvolutionForward(miopenHandle_t, const void*, ...){
//   MIOpen(CPU): 	handle = stream: 0, device_id: cpu-avx2-2t
//   MIOpen(CPU): 	xDesc = {4, 64, 56, 56}, {200704, 3136, 56, 1}, packed,
//   MIOpen(CPU): }
// Values are formatted only when logging is on.
#pragma once

#include <miopen/miopen.h>

#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/api_objects.hpp"
#include "core/logger.hpp"

namespace anydnn::api {

// The integer a C caller passed for an enum parameter. C allows any int there; in C++ a value
// outside the enumerators' range must not be loaded as the enum type (UB, and UBSan stops on
// it), so the bits are copied out instead.
template <class E>
long long raw_enum(const E& e) {
  std::underlying_type_t<E> v;
  std::memcpy(&v, &e, sizeof v);
  return static_cast<long long>(v);
}

// An array argument with its length, logged as "{ 1 2 3 }".
template <class T>
struct LogArray {
  const T* data;
  long count;
};
template <class T>
LogArray<T> log_array(const T* data, long count) {
  return {data, count};
}

void log_value(std::ostream& os, miopenHandle_t h);
void log_value(std::ostream& os, miopenTensorDescriptor_t t);
void log_value(std::ostream& os, miopenConvolutionDescriptor_t c);
void log_value(std::ostream& os, miopenActivationDescriptor_t a);
void log_value(std::ostream& os, miopenReduceTensorDescriptor_t r);
void log_value(std::ostream& os, miopenPoolingDescriptor_t p);
void log_value(std::ostream& os, miopenSoftmaxDescriptor_t s);
void log_value(std::ostream& os, miopenLRNDescriptor_t d);
void log_value(std::ostream& os, miopenCTCLossDescriptor_t c);
void log_value(std::ostream& os, miopenProblem_t p);
void log_value(std::ostream& os, miopenFindOptions_t o);
void log_value(std::ostream& os, miopenSolution_t s);
void log_value(std::ostream& os, miopenMhaDescriptor_t d);

// miopenRunSolution's argument array, logged as MIOpen logs it: "{ <id>: <descriptor or NULL>
// -> <buffer>, ... }". Pass log_tensor_arguments(tensors, nInputs) to ANYDNN_LOG_API, which
// logs it under the array's name (as log_array).
struct TensorArgumentList {
  const miopenTensorArgument_t* data;
  size_t count;
};
inline TensorArgumentList log_tensor_arguments(const miopenTensorArgument_t* data, size_t count) {
  return {data, count};
}
void log_value(std::ostream& os, const TensorArgumentList& list);
void log_value(std::ostream& os, const void* p);
void log_value(std::ostream& os, const char* s);

template <class T>
void log_value(std::ostream& os, const LogArray<T>& a) {
  if (a.data == nullptr) {
    os << "nullptr";
    return;
  }
  os << "{";
  for (long i = 0; i < a.count && i < 64; ++i)
    os << ' ' << a.data[i];
  if (a.count > 64) os << " ...";
  os << " }";
}

template <class T>
requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) void log_value(std::ostream& os,
                                                                      const T& v) {
  if constexpr (std::is_enum_v<T>) {
    os << raw_enum(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    os << (v ? 1 : 0);
  } else {
    os << v;
  }
}

template <class T>
requires(std::is_pointer_v<T*> && !std::is_same_v<std::remove_cv_t<T>, void> &&
         !std::is_same_v<std::remove_cv_t<T>, char>) void log_value(std::ostream& os, T* p) {
  log_value(os, static_cast<const void*>(p));
}

// Splits "handle, xDesc, log_array(dims, n)" into names, honouring parentheses.
std::vector<std::string> split_argument_names(std::string_view names);

template <class... Args>
void log_api_call(const Config& config, const char* signature, const char* names,
                  const Args&... args) {
  if (!config.log_api_calls) return;
  const auto split = split_argument_names(names);
  std::ostringstream ss;
  ss << signature << "{\n";
  size_t i = 0;
  ((ss << '\t' << (i < split.size() ? split[i] : std::string("?")) << " = ", log_value(ss, args),
    ss << '\n', ++i),
   ...);
  ss << "}";
  log_block(config, ss.str());
}

}  // namespace anydnn::api

#define ANYDNN_LOG_API(config, ...) \
  ::anydnn::api::log_api_call((config), __PRETTY_FUNCTION__, #__VA_ARGS__, __VA_ARGS__)
