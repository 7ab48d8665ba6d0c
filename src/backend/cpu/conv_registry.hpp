#pragma once

#include "conv/conv_solver.hpp"

namespace anydnn::cpu {

// The CPU backend's ordered convolution solvers (conv_registry.cpp).
ConvSolverRegistry make_conv_registry();

}  // namespace anydnn::cpu
