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

// `d` is non-null, set and 4-D (BadParm "<name> has 5 dimensions; <family> takes 4-D (NCHW)
// tensors" otherwise), and has `like`'s lengths and type when `like` is given.
const TensorDescriptor& checked_4d(const TensorDescriptor* d, const char* name,
                                   const TensorDescriptor* like, const char* like_name,
                                   const char* family);

}  // namespace anydnn
