// The fusion solvers in priority order: the first applicable one runs when a plan compiles, the
// fallback-only FusionSequence when none does. Fusion solvers are device-independent (their
// kernels are the convolution and BN solvers' epilogues), so every backend lists the same ones;
// a backend could add its own (a vendor's fused call) with an `if constexpr (K == ...)` line.
// Adding a solver = one file in fusion/ defining its factory, its declaration and one list line
// here with a new id. Ids are stable: never renumber or reuse one.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "fusion/fusion_solver.hpp"

namespace anydnn {

std::unique_ptr<FusionSolver> make_conv_epilogue_fused();            // conv_epilogue_fused.cpp
std::unique_ptr<FusionSolver> make_bn_fwd_infer_activation_fused();  // bn_fwd_infer_...
std::unique_ptr<FusionSolver> make_bn_fwd_trg_activation_fused();    // bn_fwd_trg_...
std::unique_ptr<FusionSolver> make_bn_bwd_trg_activation_fused();    // bn_bwd_trg_...
std::unique_ptr<FusionSolver> make_fusion_sequence();                // fusion_sequence.cpp

template <BackendKind K>
FusionSolverRegistry make_fusion_registry() {
  std::vector<FusionSolverEntry> list;
  list.push_back({1, make_conv_epilogue_fused()});
  list.push_back({2, make_bn_fwd_infer_activation_fused()});
  list.push_back({3, make_bn_fwd_trg_activation_fused()});
  list.push_back({4, make_bn_bwd_trg_activation_fused()});
  list.push_back({5, make_fusion_sequence()});
  return FusionSolverRegistry(std::move(list));
}

}  // namespace anydnn
