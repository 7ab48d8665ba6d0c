#pragma once

#include "core/cpu_isa.hpp"
#include "rnn/rnn_buffers.hpp"
#include "rnn/rnn_shape.hpp"

namespace anydnn::cpu {

// The whole forward pass: per layer and direction the input projection of all time steps in one
// GEMM, then per step the hidden GEMM and one fused elementwise pass for the gates.
void rnn_forward(const RnnShape& s, const RnnForwardBuffers& b, CpuIsa isa, int threads);

}  // namespace anydnn::cpu
