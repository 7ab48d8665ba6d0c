// The RNN passes, written once for every backend: the layer x direction x step loops of
// forward, backward data and backward weights, driving the backend's RnnKernels (step GEMMs,
// gate kernels, state moves) and its DropoutKernels between layers. The reserve and workspace
// layout is RnnShape's; the backward passes read what forward left in the reserve.
#pragma once

#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_problem.hpp"
#include "rnn/rnn_shape.hpp"

namespace anydnn {

class Backend;

// Sets b.store, b.masks, b.temp and the dropout fields: the activation store is the reserve in
// training, the front of the workspace in inference. In training, advances the dropout
// generator when the descriptor asks for state evolution (the states buffer is the backend's
// memory).
void attach_forward_space(const RnnProblem& p, bool training, void* workspace, void* reserve,
                          RnnForwardBuffers& b, Backend& backend);
// Sets b.store, b.masks, b.work and b.dropout from the forward's reserve.
void attach_backward_space(const RnnProblem& p, void* workspace, const void* reserve,
                           RnnBackwardBuffers& b);

// Per layer and direction the input projection of all time steps in one GEMM, then per step
// the hidden GEMM and one fused gate kernel; dropout between layers.
void rnn_forward_pass(Backend& backend, const RnnShape& s, const RnnForwardBuffers& b);
// Backpropagation through time, layer by layer from the top: per step one gate-gradient kernel
// and one GEMM for the state gradient; per layer and direction one GEMM for the input
// gradient. Leaves the pre-activation gradients in the workspace for backward weights.
void rnn_backward_data_pass(Backend& backend, const RnnShape& s, const RnnBackwardBuffers& b);
// Weight gradients from those: GEMMs over all steps and column sums. dw is overwritten.
void rnn_backward_weights_pass(Backend& backend, const RnnShape& s, const RnnBackwardBuffers& b);

}  // namespace anydnn
