// The activation solvers as far as they are not kernel code: name, fallback flag and
// applicability, written once for every backend. A backend's solver file derives from the spec
// and adds run().
#pragma once

#include <string_view>

#include "activation/activation_solver.hpp"

namespace anydnn {

// Every tensor packed in one order (NCHW and NCHW, NHWC and NHWC, ...): one flat, vectorised
// loop over the elements.
class ActivPackedSpec : public ActivationSolver {
 public:
  std::string_view name() const final { return "ActivPacked"; }
  Applicability applicable(const ExecutionContext&, const ActivationProblem& p) const override {
    ANYDNN_REJECT_IF(!p.geometry().contiguous(),
                     "the tensors are not packed in one common order (padded strides, or "
                     "layouts that differ between tensors)");
    return Applicability::yes();
  }
};

// Any strides, lengths paired by logical index: the fallback.
class ActivStridedSpec : public ActivationSolver {
 public:
  std::string_view name() const final { return "ActivStrided"; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext&, const ActivationProblem&) const override {
    return Applicability::yes();
  }
};

}  // namespace anydnn
