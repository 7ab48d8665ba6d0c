// RNN forward on CUDA. Not yet written: the calls report NotImplemented.
#include "backend/cuda/rnn/rnn_forward.hpp"
#include "core/errors.hpp"

namespace anydnn::cuda {

void rnn_forward(const RnnShape&, const RnnForwardBuffers&, CudaBackend&) {
  ANYDNN_THROW(miopenStatusNotImplemented, "RNN is not implemented on CUDA yet");
}

}  // namespace anydnn::cuda
