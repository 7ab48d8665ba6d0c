#pragma once

#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_shape.hpp"

namespace anydnn::cuda {

class CudaBackend;

// The whole forward pass on the GPU (the contract of backend/cpu/rnn/rnn_forward.hpp).
void rnn_forward(const RnnShape& s, const RnnForwardBuffers& b, CudaBackend& backend);

}  // namespace anydnn::cuda
