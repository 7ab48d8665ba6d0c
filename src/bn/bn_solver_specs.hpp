// The batch-normalization solvers as far as they are not kernel code: name, fallback flag and
// applicability, written once for every backend. A backend's solver file derives from the spec
// and adds run(); a backend with a tighter limit (CUDA's channel count) overrides applicable()
// and asks the spec first.
#pragma once

#include <string_view>

#include "bn/bn_solver.hpp"

namespace anydnn {

// Spatial mode on NCHW / NCDHW planes (spatial dimensions packed).
class BnSpatialChannelMajorSpec : public BnSolver {
 public:
  std::string_view name() const final { return "BnSpatialChannelMajor"; }
  Applicability applicable(const ExecutionContext& ctx, const BnProblem& p) const override;
};

// Spatial mode on NHWC / NDHWC data (channels contiguous within packed pixels).
class BnSpatialChannelLastSpec : public BnSolver {
 public:
  std::string_view name() const final { return "BnSpatialChannelLast"; }
  Applicability applicable(const ExecutionContext& ctx, const BnProblem& p) const override;
};

// Per-activation mode on packed channel-major or channel-last images.
class BnPerActivationSpec : public BnSolver {
 public:
  std::string_view name() const final { return "BnPerActivation"; }
  Applicability applicable(const ExecutionContext& ctx, const BnProblem& p) const override;
};

// Any layout, both modes: the fallback.
class BnStridedSpec : public BnSolver {
 public:
  std::string_view name() const final { return "BnStrided"; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const BnProblem&) const override {
    return Applicability::yes();
  }
};

}  // namespace anydnn
