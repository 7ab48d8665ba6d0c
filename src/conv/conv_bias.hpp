// Convolution bias (miopenConvolutionForwardBias / BackwardBias): descriptor checks, then the
// backend's kernel.
#pragma once

#include "core/tensor_descriptor.hpp"
#include "handle/handle.hpp"

namespace anydnn {

// Checks that `bias` is a bias for activations `t`: [1, K, 1, 1] (or [1, K, 1, 1, 1]) of t's
// float-like type (BadParm / NotImplemented naming bname and tname otherwise).
void check_bias_shape(const TensorDescriptor& bias, const TensorDescriptor& t, const char* bname,
                      const char* tname);

// y = alpha * (y + b) + beta * y, b of shape [1, K, 1, 1(, 1)] broadcast over y [N, K, ...].
void conv_bias_forward(Handle& handle, const TensorDescriptor& b_desc, const void* b,
                       const TensorDescriptor& y_desc, void* y, float alpha, float beta);
// db = alpha * (sum of dy over N and space) + beta * db.
void conv_bias_backward(Handle& handle, const TensorDescriptor& dy_desc, const void* dy,
                        const TensorDescriptor& db_desc, void* db, float alpha, float beta);

}  // namespace anydnn
