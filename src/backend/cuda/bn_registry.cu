// The CUDA batch-normalization solvers, in priority order (mirrors backend/cpu/bn_registry.cpp).
// Empty until the [cuda] issue lands: BN calls on the CUDA backend report NotImplemented.
#include "backend/cuda/bn_registry.hpp"

namespace anydnn::cuda {

BnSolverRegistry make_bn_registry() {
  return BnSolverRegistry({});
}

}  // namespace anydnn::cuda
