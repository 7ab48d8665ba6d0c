#include "api/conv_call.hpp"

#include <string>
#include <utility>

#include "api/api_objects.hpp"
#include "core/logger.hpp"

namespace anydnn::api {

ConvProblem make_conv_problem(ConvDirection dir, miopenTensorDescriptor_t x,
                              miopenTensorDescriptor_t w, miopenConvolutionDescriptor_t conv,
                              miopenTensorDescriptor_t y) {
  const char* xname = dir == ConvDirection::BackwardData ? "dxDesc" : "xDesc";
  const char* wname = dir == ConvDirection::BackwardWeights ? "dwDesc" : "wDesc";
  const char* yname = dir == ConvDirection::Forward ? "yDesc" : "dyDesc";
  for (auto [t, name] : {std::pair{x, xname}, std::pair{w, wname}, std::pair{y, yname}}) {
    const TensorObject& o = deref_tensor_object(t, name);
    ANYDNN_CHECK(!o.has_cast_type || o.cast_type == o.desc.type(), miopenStatusNotImplemented,
                 name << " has a cast type (miopenSetTensorCastType, MIOpen's fp8 convolutions): "
                         "not supported");
  }
  return ConvProblem(dir, deref_set(x, xname), deref_set(w, wname), deref(conv, "convDesc"),
                     deref_set(y, yname));
}

ConvBuffers make_conv_buffers(const ConvProblem& p, const void* x, const void* w, const void* y,
                              void* workspace, size_t workspace_size) {
  // MIOpen's wording for null data buffers.
  ANYDNN_CHECK_BADPARM(x != nullptr && w != nullptr && y != nullptr, "Buffers cannot be NULL");
  ANYDNN_CHECK_BADPARM(workspace != nullptr || workspace_size == 0,
                       "workspace is null but workSpaceSize is " << workspace_size);
  ConvBuffers b;
  b.x = const_cast<void*>(p.transposed() ? y : x);
  b.w = const_cast<void*>(w);
  b.y = const_cast<void*>(p.transposed() ? x : y);
  b.workspace = workspace;
  b.workspace_size = workspace == nullptr ? 0 : workspace_size;
  return b;
}

float read_scale(const void* value, const char* name) {
  ANYDNN_CHECK_BADPARM(value != nullptr, name << " is a null pointer");
  return *static_cast<const float*>(value);
}

void log_conv_command(const Config& config, const char* function, const ConvProblem& p,
                      std::optional<uint64_t> solution_id) {
  if (!config.log_driver_commands) return;
  std::string args = p.key() + " -t 1";
  if (solution_id) args += " -S " + std::to_string(*solution_id);
  log_driver_command(config, function, args);
}

}  // namespace anydnn::api
