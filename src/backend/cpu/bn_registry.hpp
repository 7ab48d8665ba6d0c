#pragma once

#include "solver/bn_solver.hpp"

namespace anydnn::cpu {

// The CPU backend's ordered batch-normalization solvers (bn_registry.cpp).
BnSolverRegistry make_bn_registry();

}  // namespace anydnn::cpu
