// The pooling solvers as far as they are not kernel code: name and applicability, written once
// for every backend. A backend's solver file derives from the spec and adds run().
#pragma once

#include <string_view>

#include "pooling/pooling_solver.hpp"

namespace anydnn {

// Forward, any layout and strides: one output element at a time (pooling_math.hpp).
class PoolFwdDirectSpec : public PoolingSolver {
 public:
  std::string_view name() const final { return "PoolFwdDirect"; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const PoolingProblem& p) const override {
    ANYDNN_REJECT_IF(!p.forward(), "backward problem");
    return Applicability::yes();
  }
};

// Forward, x and y packed NHWC / NDHWC: the channels run innermost, so every window position
// is one contiguous, vectorisable row of C elements.
class PoolFwdChannelsLastSpec : public PoolingSolver {
 public:
  std::string_view name() const final { return "PoolFwdChannelsLast"; }
  Applicability applicable(const ExecutionContext&, const PoolingProblem& p) const override {
    ANYDNN_REJECT_IF(!p.forward(), "backward problem");
    const char* l = p.x().num_dims() == 5 ? "NDHWC" : "NHWC";
    ANYDNN_REJECT_IF(!p.x().is_packed_layout(l) || !p.y().is_packed_layout(l),
                     "x and y are not both packed channels-last");
    return Applicability::yes();
  }
};

// Backward, any layout and strides: one input element at a time, gathering from the outputs
// whose windows cover it (deterministic, no atomics).
class PoolBwdDirectSpec : public PoolingSolver {
 public:
  std::string_view name() const final { return "PoolBwdDirect"; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const PoolingProblem& p) const override {
    ANYDNN_REJECT_IF(p.forward(), "forward problem");
    return Applicability::yes();
  }
};

// Backward (CPU), every dx (d, h, w) plane packed: a plane per task, dy scattered into a float
// plane (to each max's recorded position, or over each average window) and the plane written
// once with the blend. Per output instead of per input: ~10x fewer index computations than
// PoolBwdDirect's gather, which stays the fallback for other layouts.
class PoolBwdPlanesSpec : public PoolingSolver {
 public:
  std::string_view name() const final { return "PoolBwdPlanes"; }
  Applicability applicable(const ExecutionContext&, const PoolingProblem& p) const override {
    ANYDNN_REJECT_IF(p.forward(), "forward problem");
    const pool::PoolGeometry& g = p.geometry();
    // (2-D problems have one depth slice and a depth stride of 0.)
    ANYDNN_REJECT_IF(
        g.xs[4] != 1 || g.xs[3] != g.in[2] || (g.in[0] > 1 && g.xs[2] != g.in[1] * g.in[2]),
        "dx planes are not packed");
    ANYDNN_REJECT_IF(g.in[0] * g.in[1] * g.in[2] > (1 << 22), "plane above 4M elements");
    return Applicability::yes();
  }
};

}  // namespace anydnn
