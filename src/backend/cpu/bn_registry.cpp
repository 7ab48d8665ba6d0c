// The CPU batch-normalization solvers, in priority order: the first applicable one runs.
// Adding a solver = one file in bn/ that defines its factory, plus its declaration and one
// list line here with a new id. Ids are stable: never renumber or reuse one.
#include "backend/cpu/bn_registry.hpp"

#include <memory>

namespace anydnn::cpu {

std::unique_ptr<BnSolver> make_bn_spatial_channel_major();  // bn/bn_spatial_channel_major.cpp
std::unique_ptr<BnSolver> make_bn_spatial_channel_last();   // bn/bn_spatial_channel_last.cpp
std::unique_ptr<BnSolver> make_bn_per_activation();         // bn/bn_per_activation.cpp
std::unique_ptr<BnSolver> make_bn_strided();                // bn/bn_strided.cpp

BnSolverRegistry make_bn_registry() {
  std::vector<BnSolverEntry> list;
  list.push_back({1, make_bn_spatial_channel_major()});
  list.push_back({2, make_bn_spatial_channel_last()});
  list.push_back({3, make_bn_per_activation()});
  list.push_back({4, make_bn_strided()});
  return BnSolverRegistry(std::move(list));
}

}  // namespace anydnn::cpu
