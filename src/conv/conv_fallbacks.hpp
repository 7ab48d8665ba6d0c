// The convolution fallbacks: the naive direct solvers, one per direction, which every backend
// has with the same ids and names and lists last (any shape, layout and type; Find times them
// only when nothing else applies). Written once here; each backend's registry file appends them
// and each backend's solver file (conv/conv_direct_naive_*) defines its factory specialisation.
#pragma once

#include <memory>
#include <vector>

#include "core/config.hpp"
#include "solver/conv_solver.hpp"

namespace anydnn {

// Declares factory `f` for every backend: the primary template is never defined, each backend
// defines its specialisation.
#define ANYDNN_CONV_FALLBACK_FACTORY(f)              \
  template <BackendKind K>                           \
  std::unique_ptr<ConvSolver> f();                   \
  template <>                                        \
  std::unique_ptr<ConvSolver> f<BackendKind::Cpu>(); \
  template <>                                        \
  std::unique_ptr<ConvSolver> f<BackendKind::Cuda>()

ANYDNN_CONV_FALLBACK_FACTORY(make_conv_direct_naive_fwd);
ANYDNN_CONV_FALLBACK_FACTORY(make_conv_direct_naive_bwd);
ANYDNN_CONV_FALLBACK_FACTORY(make_conv_direct_naive_wrw);

template <BackendKind K>
void append_conv_fallbacks(std::vector<ConvSolverEntry>& list) {
  list.push_back({1, make_conv_direct_naive_fwd<K>()});
  list.push_back({3, make_conv_direct_naive_bwd<K>()});
  list.push_back({4, make_conv_direct_naive_wrw<K>()});
}

}  // namespace anydnn
