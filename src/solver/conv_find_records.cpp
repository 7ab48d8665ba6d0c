#include "solver/conv_find_records.hpp"

namespace anydnn {

void ConvFindRecords::store(const std::string& key, std::vector<ConvFindEntry> entries) {
  std::lock_guard<std::mutex> lock(mutex_);
  records_[key] = std::move(entries);
}

std::optional<std::vector<ConvFindEntry>> ConvFindRecords::load(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = records_.find(key);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

}  // namespace anydnn
