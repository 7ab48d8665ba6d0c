// The convolution fallbacks: the naive direct solvers, one per direction, which every backend
// has with the same ids and names and lists last (any shape, layout and type; Find times them
// only when nothing else applies). Written once here; each backend's registry file appends them
// and each backend's solver file (conv/conv_direct_naive_*) defines its factory specialisation.
#pragma once

#include <memory>
#include <vector>

#include "conv/conv_solver.hpp"
#include "core/config.hpp"
#include "solver/registry.hpp"

namespace anydnn {

ANYDNN_SOLVER_FACTORY(ConvSolver, make_conv_direct_naive_fwd);
ANYDNN_SOLVER_FACTORY(ConvSolver, make_conv_direct_naive_bwd);
ANYDNN_SOLVER_FACTORY(ConvSolver, make_conv_direct_naive_wrw);

template <BackendKind K>
void append_conv_fallbacks(std::vector<ConvSolverEntry>& list) {
  list.push_back({1, make_conv_direct_naive_fwd<K>()});
  list.push_back({3, make_conv_direct_naive_bwd<K>()});
  list.push_back({4, make_conv_direct_naive_wrw<K>()});
}

}  // namespace anydnn
