// The CUDA batch-normalization solvers, in priority order: the first applicable one runs
// (mirrors backend/cpu/bn_registry.cpp, with the same ids and names, so a solver keeps its id
// across backends). Ids are stable: never renumber or reuse one.
#include "backend/cuda/bn_registry.hpp"

#include <memory>

namespace anydnn::cuda {

std::unique_ptr<BnSolver> make_bn_spatial_channel_major();  // bn/bn_spatial_channel_major.cu
std::unique_ptr<BnSolver> make_bn_spatial_channel_last();   // bn/bn_spatial_channel_last.cu
std::unique_ptr<BnSolver> make_bn_per_activation();         // bn/bn_per_activation.cu
std::unique_ptr<BnSolver> make_bn_strided();                // bn/bn_strided.cu

BnSolverRegistry make_bn_registry() {
  std::vector<BnSolverEntry> list;
  list.push_back({1, make_bn_spatial_channel_major()});
  list.push_back({2, make_bn_spatial_channel_last()});
  list.push_back({3, make_bn_per_activation()});
  list.push_back({4, make_bn_strided()});
  return BnSolverRegistry(std::move(list));
}

}  // namespace anydnn::cuda
