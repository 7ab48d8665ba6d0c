// MIOpen's verification metric and tolerances (shared/reference/miopen.md §c).
#pragma once

#include <miopen/miopen.h>

#include <vector>

namespace anydnn::ref {

// rms_range = sqrt(sum (a-b)^2) / (sqrt(n) * max(|max a|, |max b|, DBL_MIN)); infinity when the
// sizes differ; NaN when any value is NaN (so a NaN output never verifies).
double rms_range(const std::vector<double>& a, const std::vector<double>& b);

// MIOpenDriver's default conv tolerance: 1.5e-6 fp32, 8.2e-3 fp16, x8 for bfloat16.
double conv_default_tolerance(miopenDataType_t type);

}  // namespace anydnn::ref
