// MIOpen's verification metric and tolerances (shared/reference/miopen.md §c).
#pragma once

#include <miopen/miopen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace anydnn::ref {

// rms_range = sqrt(sum (a-b)^2) / (sqrt(n) * max(|max a|, |max b|, DBL_MIN)); infinity when the
// sizes differ; NaN when any value is NaN (so a NaN output never verifies).
double rms_range(const std::vector<double>& a, const std::vector<double>& b);

// The tests' metric: rms_range normalised by the largest magnitude in either vector. MIOpen's
// rms_range divides by the magnitude of the (signed) maximum, which for outputs that are all
// negative, or few, can be tiny and turn rounding noise into a failure; this one cannot. Always
// <= rms_range, so MIOpen's tolerances stay meaningful.
double relative_rms(const std::vector<double>& a, const std::vector<double>& b);

// The largest |got - want| over the largest |want| (any element types). Infinity when the sizes
// differ or any value is NaN, so an output left unwritten (poisoned with NaN) never passes.
template <class Want, class Got>
double max_relative_error(const Want& want, const Got& got) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (want.size() != got.size()) return kInf;
  double scale = 1e-30, err = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double w = static_cast<double>(want[i]), d = std::abs(static_cast<double>(got[i]) - w);
    if (std::isnan(d)) return kInf;
    scale = std::max(scale, std::abs(w));
    err = std::max(err, d);
  }
  return err / scale;
}

// MIOpenDriver's default conv tolerance: 1.5e-6 fp32, 8.2e-3 fp16, x8 for bfloat16.
double conv_default_tolerance(miopenDataType_t type);

}  // namespace anydnn::ref
