#include "fusion/bn_activation_fused.hpp"

#include "backend/backend.hpp"
#include "core/logger.hpp"
#include "fusion/fusion_steps.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

const BnSolverEntry* bn_solver_with_activation(const ExecutionContext& ctx, const BnProblem& p,
                                               miopenActivationMode_t mode, std::string* why) {
  std::string reasons;
  const BnSolverEntry* e =
      first_applicable(ctx.backend.solvers<BnSolver>(), ctx, p, reasons,
                       [&](const BnSolver& s) { return s.activation_support(ctx, p, mode); });
  if (why) *why += reasons;
  return e;
}

Applicability BnActivationFused::applicable(const ExecutionContext& ctx,
                                            const FusionProblem& p) const {
  ANYDNN_REJECT_IF(p.chain() != chain_, "not a " + p.chain_name() + " chain of this kind");
  std::string why;
  ANYDNN_REJECT_IF(bn_solver_with_activation(ctx, *p.bn(), p.activation_mode(), &why) == nullptr,
                   "no BN solver fuses the activation (" + why + ")");
  return Applicability::yes();
}

FusionInvoker BnActivationFused::compile(Handle& handle, const FusionProblem& p) const {
  const BnSolverEntry* e =
      bn_solver_with_activation(handle.context(), *p.bn(), p.activation_mode(), nullptr);
  ANYDNN_CHECK(e != nullptr, miopenStatusInternalError, "no BN solver fuses the activation");
  FusionInvoker inv;
  inv.detail = "BN solver " + std::string(e->solver->name());
  inv.run = [p, e](Handle& h, const FusionBuffers& b) {
    // The problem with this call's epsilon and the activation's parameters (both checked) first.
    const BnProblem bp = fusion_bn_problem(p, *b.args.bn);
    const FusionOp& act = p.ops().back();
    const FusedActivation fa = fused_activation(act, *b.args.activ, p.output());
    BnBuffers bb = fusion_bn_buffers(p, b);
    bb.activation = &fa;
    // The solver was chosen for this problem's descriptors; epsilon does not change that.
    const ExecutionContext ctx = h.context();
    ANYDNN_LOG_I2(h.config(), "batch norm " << bp.key() << ": " << e->solver->name()
                                            << " with the activation fused");
    h.record_kernel_time(h.run_primitive([&] { e->solver->run(ctx, bp, bb); }));
  };
  return inv;
}

}  // namespace anydnn
