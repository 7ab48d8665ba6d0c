// The CUDA tensor-op kernels the solvers share (tensor_op_kernels.cu): a plan
// (tensor_ops/tensor_op_plan.hpp) on the backend's stream, walked one of three ways.
#pragma once

#include <cuda_runtime.h>

#include "tensor_ops/tensor_op_solver.hpp"

namespace anydnn::cuda {

enum class TensorOpWalk {
  // One unit-stride run: grid-stride over the elements, no index arithmetic.
  Flat,
  // Unit-stride rows: blockIdx.y walks rows (the outer offsets computed once per row and block),
  // the x threads walk a row's columns, so neighbouring threads touch neighbouring elements.
  Rows,
  // Any strides: grid-stride over the elements, each decomposed over the plan's dimensions.
  Strided,
};

void launch_tensor_op(const TensorOpPlan& plan, const TensorOpBuffers& b, TensorOpWalk walk,
                      cudaStream_t stream);

}  // namespace anydnn::cuda
