#pragma once

#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_shape.hpp"

namespace anydnn::cuda {

class CudaBackend;

// Backpropagation through time and the weight gradients on the GPU (the contract of
// backend/cpu/rnn/rnn_backward.hpp, same workspace and reserve layout).
void rnn_backward_data(const RnnShape& s, const RnnBackwardBuffers& b, CudaBackend& backend);
void rnn_backward_weights(const RnnShape& s, const RnnBackwardBuffers& b, CudaBackend& backend);

}  // namespace anydnn::cuda
