// Row gathers / scatters and fills for the front-end's packing (RnnKernels::move_rows, ::fill) on
// CUDA: one offset table uploaded per call, one kernel per group.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "rnn/rnn_kernels.hpp"

namespace anydnn::cuda {

void move_rows(const std::vector<RowMoves>& groups, cudaStream_t stream);
void fill(void* dst, size_t n, float value, bool half, cudaStream_t stream);

}  // namespace anydnn::cuda
