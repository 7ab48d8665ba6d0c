// Invokers built for a problem, kept in the handle so that later calls run without rebuilding:
//  - by (network config, algorithm): what Find picked for each algorithm; the legacy
//    miopenConvolution{Forward,BackwardData,BackwardWeights}(algo) calls run these (MIOpen's
//    "Was find executed?" rule);
//  - by (network config, solver id): immediate-mode solutions compiled on first use.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "conv/conv_solver.hpp"

namespace anydnn {

struct CachedConvInvoker {
  uint64_t solver_id = 0;
  std::string solver_name;
  miopenConvAlgorithm_t algorithm = miopenConvolutionAlgoGEMM;
  size_t workspace_size = 0;
  ConvInvoker invoker;
};

class ConvInvokerCache {
 public:
  void set_found(const std::string& network_config, miopenConvAlgorithm_t algo,
                 CachedConvInvoker inv);
  std::optional<CachedConvInvoker> found(const std::string& network_config,
                                         miopenConvAlgorithm_t algo) const;

  void set_solution(const std::string& network_config, CachedConvInvoker inv);
  std::optional<CachedConvInvoker> solution(const std::string& network_config,
                                            uint64_t solver_id) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, CachedConvInvoker> found_;
  std::map<std::pair<std::string, uint64_t>, CachedConvInvoker> solutions_;
};

}  // namespace anydnn
