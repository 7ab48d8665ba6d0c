// The softmax solvers as far as they are not kernel code: name, fallback flag and
// applicability, written once for every backend. A backend's solver file derives from the spec
// and adds run().
#pragma once

#include <string_view>

#include "softmax/softmax_solver.hpp"

namespace anydnn {

// Every tensor packed NCHW (MIOpen's layout, what frameworks pass): CPU rows of h*w pixels as
// vector lanes (CHANNEL) or one contiguous image (INSTANCE); CUDA a thread per pixel or a block
// per group.
class SoftmaxPackedSpec : public SoftmaxSolver {
 public:
  std::string_view name() const final { return "SoftmaxPacked"; }
  Applicability applicable(const ExecutionContext&, const SoftmaxProblem& p) const override {
    ANYDNN_REJECT_IF(!p.packed(), "the tensors are not all packed NCHW");
    return Applicability::yes();
  }
};

// Any strides (each tensor its own): the fallback.
class SoftmaxStridedSpec : public SoftmaxSolver {
 public:
  std::string_view name() const final { return "SoftmaxStrided"; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const SoftmaxProblem&) const override {
    return Applicability::yes();
  }
};

}  // namespace anydnn
