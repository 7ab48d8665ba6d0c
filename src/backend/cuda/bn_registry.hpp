#pragma once

#include "solver/bn_solver.hpp"

namespace anydnn::cuda {

// The CUDA backend's ordered batch-normalization solvers (bn_registry.cu).
BnSolverRegistry make_bn_registry();

}  // namespace anydnn::cuda
