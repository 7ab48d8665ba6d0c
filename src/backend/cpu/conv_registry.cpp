// The CPU convolution solvers, in priority order. Adding a solver = one file in conv/ that
// defines its factory, plus its declaration and one list line here with a new id. Ids are
// stable: never renumber or reuse one (docs/adding-a-solver.md).
#include "backend/cpu/conv_registry.hpp"

#include <memory>

namespace anydnn::cpu {

// Factories, one per file in conv/.
std::unique_ptr<ConvSolver> make_conv_direct_naive_fwd();  // conv/conv_direct_naive_fwd.cpp
std::unique_ptr<ConvSolver> make_gemm_fwd_rest();          // conv/gemm_fwd_rest.cpp

ConvSolverRegistry make_conv_registry() {
  std::vector<ConvSolverEntry> list;
  list.push_back({2, make_gemm_fwd_rest()});
  list.push_back({1, make_conv_direct_naive_fwd()});  // any shape: last resort
  return ConvSolverRegistry(std::move(list));
}

}  // namespace anydnn::cpu
