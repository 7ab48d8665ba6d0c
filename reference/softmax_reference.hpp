// Naive softmax reference in double: the test oracle and MIOpenDriver softmax's -V 1 check. It
// follows MIOpen's host code (driver/mloSoftmaxHost.hpp) and shares no code with the library's
// kernels. Values are packed NCHW logical order (to_logical); lens are n, c, h, w.
//   INSTANCE: one softmax per image over c*h*w; CHANNEL: one per pixel over c.
//   FAST: exp(x) / sum exp(x); ACCURATE: the max subtracted first; LOG: x - max - log(sum).
//   backward: dx = (dy - sum(dy*y)) * y; LOG: dx = dy - sum(dy) * exp(y).
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <vector>

namespace anydnn::ref {

struct SoftmaxDesc {
  miopenSoftmaxAlgorithm_t algorithm = MIOPEN_SOFTMAX_ACCURATE;
  miopenSoftmaxMode_t mode = MIOPEN_SOFTMAX_MODE_CHANNEL;
};

std::vector<double> softmax_forward(const SoftmaxDesc& d, const std::array<size_t, 4>& lens,
                                    const std::vector<double>& x);
std::vector<double> softmax_backward(const SoftmaxDesc& d, const std::array<size_t, 4>& lens,
                                     const std::vector<double>& y, const std::vector<double>& dy);

// out = alpha * value + beta * prior, elementwise.
std::vector<double> softmax_blend(const std::vector<double>& value, double alpha, double beta,
                                  const std::vector<double>& prior);

// MIOpenDriver softmax's check: the RMS of the difference over the RMS range (miopen::rms_range
// of test/verify.hpp); returns it (infinite when a value is not finite).
double softmax_rms_error(const std::vector<double>& want, const std::vector<double>& got);

// MIOpenDriver softmax's tolerance on that error: 1e-3 for fp32, 5e-2 for 16-bit data.
double softmax_tolerance(miopenDataType_t type);

}  // namespace anydnn::ref
