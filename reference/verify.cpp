#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace anydnn::ref {

double rms_range(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return std::numeric_limits<double>::infinity();
  double sq = 0.0;
  double max_a = -std::numeric_limits<double>::infinity();
  double max_b = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = a[i] - b[i];
    sq += d * d;
    max_a = std::max(max_a, a[i]);
    max_b = std::max(max_b, b[i]);
    if (std::isnan(a[i]) || std::isnan(b[i])) return std::numeric_limits<double>::quiet_NaN();
  }
  const double mag =
      std::max({std::fabs(max_a), std::fabs(max_b), std::numeric_limits<double>::min()});
  return std::sqrt(sq) / (std::sqrt(static_cast<double>(a.size())) * mag);
}

double relative_rms(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return std::numeric_limits<double>::infinity();
  double sq = 0.0, mag = std::numeric_limits<double>::min();
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return std::numeric_limits<double>::quiet_NaN();
    const double d = a[i] - b[i];
    sq += d * d;
    mag = std::max({mag, std::fabs(a[i]), std::fabs(b[i])});
  }
  return std::sqrt(sq) / (std::sqrt(static_cast<double>(a.size())) * mag);
}

double conv_default_tolerance(miopenDataType_t type) {
  switch (type) {
    case miopenHalf:
      return 8.2e-3;
    case miopenBFloat16:
      return 8.2e-3 * 8.0;
    default:
      return 1.5e-6;
  }
}

}  // namespace anydnn::ref
