#include "conv/conv_invoker_cache.hpp"

namespace anydnn {

void ConvInvokerCache::set_found(const std::string& network_config, miopenConvAlgorithm_t algo,
                                 CachedConvInvoker inv) {
  std::lock_guard<std::mutex> lock(mutex_);
  found_[{network_config, static_cast<int>(algo)}] = std::move(inv);
}

std::optional<CachedConvInvoker> ConvInvokerCache::found(const std::string& network_config,
                                                         miopenConvAlgorithm_t algo) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = found_.find({network_config, static_cast<int>(algo)});
  if (it == found_.end()) return std::nullopt;
  return it->second;
}

void ConvInvokerCache::set_solution(const std::string& network_config, CachedConvInvoker inv) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t id = inv.solver_id;
  solutions_[{network_config, id}] = std::move(inv);
}

std::optional<CachedConvInvoker> ConvInvokerCache::solution(const std::string& network_config,
                                                            uint64_t solver_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = solutions_.find({network_config, solver_id});
  if (it == solutions_.end()) return std::nullopt;
  return it->second;
}

}  // namespace anydnn
