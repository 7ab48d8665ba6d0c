// Find results per problem: for each solver Find timed, its time and workspace. Immediate mode
// ranks solutions by these records, and Find in FAST/HYBRID modes can reuse them. This is the
// in-memory layer; records are keyed by the canonical problem string and the backend device.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace anydnn {

struct ConvFindEntry {
  uint64_t solver_id = 0;
  std::string solver_name;
  miopenConvAlgorithm_t algorithm = miopenConvolutionAlgoGEMM;
  float time_ms = 0.0f;
  size_t workspace_size = 0;
};

class ConvFindRecords {
 public:
  void store(const std::string& key, std::vector<ConvFindEntry> entries);
  std::optional<std::vector<ConvFindEntry>> load(const std::string& key) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<ConvFindEntry>> records_;
};

}  // namespace anydnn
