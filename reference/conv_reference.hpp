// Naive reference convolution with double accumulation: the test oracle and MIOpenDriver's
// -V 1 check. Written independently of the library's solvers (it shares only the fp16/bf16
// conversion helpers), following MIOpen's definitions (shared/reference/miopen.md §e):
//   forward      y[n,k,o]  = sum_{c<C/G, f} x[n, g*C/G + c, o*s + f*d - p] * w[k, c, f]
//   backward     dx[n,c,i] = sum_{k in group, f} dy[n, k, (i + p - f*d) / s] * w[k, c mod C/G, f]
//   weights      dw[k,c,f] = sum_{n,o} x[n, g*C/G + c, o*s + f*d - p] * dy[n, k, o]
// Tensors may have any strides and float, half or bfloat16 storage; results are returned as
// doubles in packed logical order (N, C, [D,] H, W or K, C/G, [Z,] Y, X).
#pragma once

#include <miopen/miopen.h>

#include <cstddef>
#include <vector>

namespace anydnn::ref {

struct TensorView {
  const void* data = nullptr;
  miopenDataType_t type = miopenFloat;
  std::vector<size_t> lens;     // logical order, 4-D or 5-D
  std::vector<size_t> strides;  // in elements
};

struct ConvParams {
  std::vector<int> pads, strides, dilations;  // one per spatial dimension
  int groups = 1;
};

// Element `offset` (in elements) of a buffer of `type`, as a double.
double load_element(const void* data, miopenDataType_t type, size_t offset);

// All elements of a view in packed logical order.
std::vector<double> to_logical(const TensorView& t);

// y lengths must be given (they come from the library's output-size rules, checked separately).
std::vector<double> conv_forward(const TensorView& x, const TensorView& w, const ConvParams& p,
                                 const std::vector<size_t>& y_lens);
std::vector<double> conv_backward_data(const TensorView& dy, const TensorView& w,
                                       const ConvParams& p, const std::vector<size_t>& dx_lens);
std::vector<double> conv_backward_weights(const TensorView& x, const TensorView& dy,
                                          const ConvParams& p, const std::vector<size_t>& dw_lens);
// Bias: y[n,k,...] += b[k]; db[k] = sum over n and spatial of dy[n,k,...].
std::vector<double> bias_backward(const TensorView& dy);

}  // namespace anydnn::ref
