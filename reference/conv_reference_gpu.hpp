// The naive convolution reference (conv_reference.hpp) run on a CUDA device: the same loops and
// double accumulation, one thread per output element, on the device buffers the library read.
// MIOpenDriver -V 1 uses it for CUDA runs (MIOPEN_DRIVER_USE_GPU_REFERENCE, on by default as in
// MIOpen's driver), so full-size DeepBench and 3-D cases verify in seconds instead of minutes;
// the GPU suite checks it against the CPU reference (tests/gpu/conv_reference_gpu_test.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "conv_reference.hpp"

namespace anydnn::ref::gpu {

// TensorView whose data is device memory.
using DeviceView = TensorView;

// Same contracts as ref::conv_forward / conv_backward_data / conv_backward_weights: results in
// packed logical order, as doubles, on the host. Throw std::runtime_error on a CUDA error.
std::vector<double> conv_forward(const DeviceView& x, const DeviceView& w, const ConvParams& p,
                                 const std::vector<size_t>& y_lens);
std::vector<double> conv_backward_data(const DeviceView& dy, const DeviceView& w,
                                       const ConvParams& p, const std::vector<size_t>& dx_lens);
std::vector<double> conv_backward_weights(const DeviceView& x, const DeviceView& dy,
                                          const ConvParams& p, const std::vector<size_t>& dw_lens);

}  // namespace anydnn::ref::gpu
