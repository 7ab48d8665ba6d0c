// What every solver of every primitive family (convolution, batch norm, and the families to
// come) shares, whatever its problem type: the context it runs in (ExecutionContext, with the
// backend interface) and the answer to "do you apply?" with a reason. A family's own header
// (conv_solver.hpp, bn_solver.hpp) adds its problem, buffers and run/invoker signature;
// registry.hpp holds the ordered list of a family's solvers.
#pragma once

#include <string>
#include <utility>

#include "backend/backend.hpp"  // ExecutionContext
#include "core/config.hpp"

namespace anydnn {

// The answer of applicable(): yes, or no with a one-line reason (logged at Info2).
struct Applicability {
  bool ok = true;
  std::string reason;
  static Applicability yes() { return {}; }
  static Applicability no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

#define ANYDNN_REJECT_IF(cond, why)                    \
  do {                                                 \
    if (cond) return ::anydnn::Applicability::no(why); \
  } while (false)

}  // namespace anydnn
