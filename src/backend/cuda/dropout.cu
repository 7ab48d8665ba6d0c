// Dropout on CUDA. Not yet written: the calls report NotImplemented.
#include "backend/cuda/dropout.hpp"
#include "core/errors.hpp"

namespace anydnn::cuda {

void dropout_apply(const TensorDescriptor&, const void*, const TensorDescriptor&, void*, uint8_t*,
                   bool, uint64_t, uint64_t, float, cudaStream_t) {
  ANYDNN_THROW(miopenStatusNotImplemented, "dropout is not implemented on CUDA yet");
}

}  // namespace anydnn::cuda
