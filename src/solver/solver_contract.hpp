// What every solver of every primitive family (convolution, batch norm, and the families to
// come) shares, whatever its problem type: the context it runs in (ExecutionContext, with the
// backend interface) and the answer to "do you apply?" with a reason. A family's own header
// (conv_solver.hpp, bn_solver.hpp) adds its problem, buffers and run/invoker signature;
// registry.hpp holds the ordered list of a family's solvers.
#pragma once

#include <string>
#include <string_view>
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

// The contract of a family whose solvers run on concrete buffers (activation, batch norm, CTC
// loss, LRN, pooling, reduction, softmax, tensor ops): a name, whether it is only a fallback (run
// when no other solver applies; it exists for coverage), applicability with a reason, and the
// run. `RunArgs` is what run() takes besides the buffers: the problem itself, or a plan the
// front-end derived from it (ReducePlan, TensorOpPlan). A family's solver class derives from it
// and adds its kRegistryLabel (solver/registry.hpp's messages) and any hook of its own.
// (Convolution, fusion and attention have contracts of their own: invokers, workspaces, Find.)
template <class Problem, class Buffers, class RunArgs = Problem>
class RunSolver {
 public:
  using ProblemType = Problem;
  virtual ~RunSolver() = default;
  virtual std::string_view name() const = 0;
  virtual bool fallback_only() const { return false; }
  virtual Applicability applicable(const ExecutionContext& ctx, const Problem& p) const = 0;
  virtual void run(const ExecutionContext& ctx, const RunArgs& args, const Buffers& b) const = 0;
};

}  // namespace anydnn
