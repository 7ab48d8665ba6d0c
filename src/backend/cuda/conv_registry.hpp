#pragma once

#include "conv/conv_solver.hpp"

namespace anydnn::cuda {

// The CUDA backend's ordered convolution solvers (conv_registry.cu).
ConvSolverRegistry make_conv_registry();

}  // namespace anydnn::cuda
