// The CUDA reduction kernels the solvers share (reduce_kernels.cu): a plan
// (reduction/reduce_plan.hpp) on the backend's stream, walked one of three ways, with the
// arithmetic of reduction/reduce_math.hpp. Results are deterministic (fixed block size and
// reduction tree); indices follow MIOpen's rule exactly (first index on ties, the last NaN's
// with PROPAGATE), because the block merge breaks ties by index.
#pragma once

#include <cuda_runtime.h>

#include "reduction/reduce_solver.hpp"

namespace anydnn::cuda {

enum class ReduceWalk {
  // One block per output; its threads stride over the output's unit-stride run (coalesced),
  // then combine their partials through warp shuffles and shared memory.
  Rows,
  // A block per tile of 32 (or 8) neighbouring outputs, so each step of the reduced walk is one
  // coalesced load across a warp; the tile's reduced elements are split over the block's row
  // slices, merged in a fixed order.
  Columns,
  // One block per output; its threads stride over the reduced flat index, each decomposed over
  // the reduced dimensions (any strides), then the block reduction of Rows.
  Strided,
};

void launch_reduce(const ReducePlan& plan, const ReduceBuffers& b, ReduceWalk walk,
                   cudaStream_t stream);

}  // namespace anydnn::cuda
