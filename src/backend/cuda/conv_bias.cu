// CUDA convolution bias kernels. Not yet written: the calls report NotImplemented.
#include "backend/cuda/conv_bias.hpp"
#include "core/errors.hpp"

namespace anydnn::cuda {

void conv_bias_forward(const TensorDescriptor&, const void*, const TensorDescriptor&, void*, float,
                       float, cudaStream_t) {
  ANYDNN_THROW(miopenStatusNotImplemented, "convolution bias is not implemented on CUDA yet");
}
void conv_bias_backward(const TensorDescriptor&, const void*, const TensorDescriptor&, void*,
                        float, float, cudaStream_t) {
  ANYDNN_THROW(miopenStatusNotImplemented, "convolution bias is not implemented on CUDA yet");
}

}  // namespace anydnn::cuda
