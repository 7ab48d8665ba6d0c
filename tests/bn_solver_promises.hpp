// What each batch-norm solver is meant for, as conv_solver_promises.hpp for convolution: every
// problem of tests/problems/bn_problems.txt the promise covers must be accepted, so a solver that
// turns itself off fails its per-solver test (CPU: unit/bn_solvers_test.cpp; CUDA:
// gpu/bn_solvers_gpu_test.cpp) instead of leaving everything to the strided fallback.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <string_view>

namespace anydnn::test {

// `layout` is the packed layout the problem line names (NCHW, NCDHW, NHWC, NDHWC).
inline std::optional<bool> bn_solver_meant_for(std::string_view s, miopenBatchNormMode_t mode,
                                               const std::string& layout) {
  const bool spatial = mode == miopenBNSpatial;
  const bool major = layout == "NCHW" || layout == "NCDHW";
  const bool last = layout == "NHWC" || layout == "NDHWC";
  if (s == "BnStrided") return true;  // the fallback: any layout, mode and type
  if (s == "BnPerActivation") return !spatial && (major || last);
  if (s == "BnSpatialChannelMajor") return spatial && major;
  if (s == "BnSpatialChannelLast") return spatial && last;
  return std::nullopt;
}

}  // namespace anydnn::test
