// RNN backward on CUDA. Not yet written: the calls report NotImplemented.
#include "backend/cuda/rnn/rnn_backward.hpp"
#include "core/errors.hpp"

namespace anydnn::cuda {

void rnn_backward_data(const RnnShape&, const RnnBackwardBuffers&, CudaBackend&) {
  ANYDNN_THROW(miopenStatusNotImplemented, "RNN is not implemented on CUDA yet");
}
void rnn_backward_weights(const RnnShape&, const RnnBackwardBuffers&, CudaBackend&) {
  ANYDNN_THROW(miopenStatusNotImplemented, "RNN is not implemented on CUDA yet");
}

}  // namespace anydnn::cuda
