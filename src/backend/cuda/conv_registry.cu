// The CUDA convolution solvers, in priority order (mirrors backend/cpu/conv_registry.cpp).
// Empty until the [cuda] issue lands: the CUDA backend then reports no applicable solver.
#include "backend/cuda/conv_registry.hpp"

namespace anydnn::cuda {

ConvSolverRegistry make_conv_registry() {
  return ConvSolverRegistry({});
}

}  // namespace anydnn::cuda
