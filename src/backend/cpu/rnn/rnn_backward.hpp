#pragma once

#include "core/cpu_isa.hpp"
#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_shape.hpp"

namespace anydnn::cpu {

// Backpropagation through time, layer by layer from the top: per step one fused elementwise
// pass for the gate gradients and one GEMM for the state gradient; per layer and direction one
// GEMM for the input gradient. Leaves the pre-activation gradients in the workspace.
void rnn_backward_data(const RnnShape& s, const RnnBackwardBuffers& b, CpuIsa isa, int threads);
// Weight gradients from those: two GEMMs (input side over all steps, hidden side over all
// steps) and two column sums per layer and direction. dw is overwritten.
void rnn_backward_weights(const RnnShape& s, const RnnBackwardBuffers& b, int threads);

}  // namespace anydnn::cpu
