// Argument checks and message text the primitives' problems share (written once; each problem
// keeps the checks that are its own, e.g. the rank it takes).
#pragma once

#include <string>
#include <vector>

#include "core/tensor_descriptor.hpp"

namespace anydnn {

// Lengths as the messages print them: "2x3x4x5".
std::string lens_text(const std::vector<size_t>& lens);

// `d` is set and, when `like` is given, has its lengths and data type; BadParm naming both
// arguments otherwise ("dy is 2x3x4x5 but y is 2x3x4x6").
void check_same_lens_and_type(const TensorDescriptor& d, const char* name,
                              const TensorDescriptor& like, const char* like_name);

}  // namespace anydnn
