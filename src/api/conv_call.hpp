// Helpers shared by the convolution C shims: building the problem and buffers of a call in the
// forward-sense naming of ConvProblem, the alpha/beta rule, and the driver-command log line.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <optional>

#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::api {

// Descriptors in the forward sense (see ConvProblem): x = x or dx, w = w or dw, y = y or dy.
ConvProblem make_conv_problem(ConvDirection dir, miopenTensorDescriptor_t x,
                              miopenTensorDescriptor_t w, miopenConvolutionDescriptor_t conv,
                              miopenTensorDescriptor_t y);

// Buffers in the problem's normalised naming (x and y swap for transposed convolutions).
// Data pointers must not be null; workspace may be null only with size 0.
ConvBuffers make_conv_buffers(const ConvProblem& p, const void* x, const void* w, const void* y,
                              void* workspace, size_t workspace_size);

// The host-side float a scaling-factor argument points to (BadParm when null).
float read_scale(const void* value, const char* name);

// "Command [<function>] ./bin/MIOpenDriver <key> -t 1 [-S <id>]" when MIOPEN_ENABLE_LOGGING_CMD.
void log_conv_command(const Config& config, const char* function, const ConvProblem& p,
                      std::optional<uint64_t> solution_id = std::nullopt);

}  // namespace anydnn::api
