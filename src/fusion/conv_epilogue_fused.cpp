// ConvEpilogueFused: a convolution chain (conv [+ z] [+ bias] [+ spatial BN inference]
// [+ activation]) run as one convolution whose solver applies the rest in its epilogue
// (activation/fused_epilogue.hpp) while each output tile is still in registers or cache: bias, BN
// inference and alpha1 folded into a per-channel scale and shift, then the activation. One pass
// over the output instead of up to four. The convolution solver is immediate mode's choice
// among those that take such an epilogue (and of the plan's algorithm).
#include <memory>

#include "conv/conv_ops.hpp"
#include "conv/epilogue_fold.hpp"
#include "fusion/fusion_registry.hpp"
#include "fusion/fusion_steps.hpp"

namespace anydnn {

namespace {

ConvEpilogueNeeds needs_of(const FusionProblem& p) {
  ConvEpilogueNeeds n;
  const bool bn = p.find(FusionOpKind::BnInference) != nullptr;
  n.scale = bn || p.scaled_conv();
  n.shift = bn || p.find(FusionOpKind::BiasForward) != nullptr;
  n.residual = p.find(FusionOpKind::TensorScaleAdd) != nullptr;
  n.activation = p.activation_mode();
  return n;
}

class ConvEpilogueFused final : public FusionSolver {
 public:
  std::string_view name() const override { return "ConvEpilogueFused"; }

  Applicability applicable(const ExecutionContext& ctx, const FusionProblem& p) const override {
    ANYDNN_REJECT_IF(p.chain() != FusionChain::Conv, "not a convolution chain");
    ANYDNN_REJECT_IF(p.conv().direction() != ConvDirection::Forward,
                     "a transposed convolution runs as backward data (no epilogue)");
    const FusionOp* bn = p.find(FusionOpKind::BnInference);
    ANYDNN_REJECT_IF(bn != nullptr && bn->bn_mode != miopenBNSpatial,
                     "per-activation BN is not a per-channel affine");
    const FusionOp* z = p.find(FusionOpKind::TensorScaleAdd);
    ANYDNN_REJECT_IF(z != nullptr && !(z->param == p.output()),
                     "z is not laid out like the output (the epilogue reads it at y's offsets)");
    const ConvEpilogueNeeds needs = needs_of(p);
    std::string reasons;
    for (const ConvSolverEntry& e : ctx.backend.solvers<ConvSolver>().entries()) {
      std::string why;
      if (!conv_solver_enabled(ctx.config, e, &why)) continue;
      const auto algo = p.conv_algorithm();
      if (algo && p.algorithm_required() &&
          static_cast<int>(e.solver->algorithm()) != static_cast<int>(*algo))
        continue;
      if (!e.solver->applicable(ctx, p.conv())) continue;
      const Applicability a = e.solver->epilogue_support(ctx, p.conv(), needs);
      if (a) return Applicability::yes();
      reasons += std::string(reasons.empty() ? "" : "; ") + std::string(e.solver->name()) + ": " +
                 a.reason;
    }
    return Applicability::no("no applicable convolution solver takes the epilogue (" +
                             (reasons.empty() ? std::string("none applies") : reasons) + ")");
  }

  FusionInvoker compile(Handle& handle, const FusionProblem& p) const override {
    const ConvEpilogueNeeds needs = needs_of(p);
    const ExecutionContext ctx = handle.context();
    const auto sol = fusion_conv_solution(handle, p, [&](const ConvSolverEntry& e) {
      return e.solver->epilogue_support(ctx, p.conv(), needs).ok;
    });
    ANYDNN_CHECK(sol.has_value(), miopenStatusNotImplemented,
                 "no immediate-mode solution of " << p.conv().key() << " takes the epilogue");
    const ConvProblem cp = p.conv();
    const uint64_t id = sol->solution_id;
    const size_t conv_ws = conv_solution_workspace_size(handle, cp, id);
    // Workspace: the convolution's, then the folded scale and shift (K floats each).
    const size_t k = cp.out_channels();
    const size_t coef_at = aligned_bytes(conv_ws);
    const size_t coef_bytes = needs.scale || needs.shift ? 2 * aligned_bytes(k * sizeof(float)) : 0;
    FusionInvoker inv;
    inv.workspace_size = coef_at + coef_bytes;
    inv.detail = "conv solution " + std::to_string(id) + " " +
                 std::string(handle.backend().solvers<ConvSolver>().find(id)->solver->name());
    inv.run = [p, cp, id, conv_ws, coef_at, k, needs](Handle& h, const FusionBuffers& b) {
      // Every step's values are checked before anything is written.
      ConvEpilogue ep;
      const FusionOp* act = p.find(FusionOpKind::ActivForward);
      if (act) ep.activation = fused_activation(*act, *b.args.activ, p.output());
      const FusionOp* bn = p.find(FusionOpKind::BnInference);
      if (bn) fusion_bn_problem(p, *b.args.bn);  // epsilon
      if (needs.scale || needs.shift) {
        auto* scale = reinterpret_cast<float*>(static_cast<char*>(b.workspace) + coef_at);
        float* shift = scale + aligned_bytes(k * sizeof(float)) / sizeof(float);
        EpilogueFold f;
        f.channels = k;
        f.alpha = b.args.conv->conv_alpha;
        if (const FusionOp* bias = p.find(FusionOpKind::BiasForward)) {
          f.bias_desc = &bias->param;
          f.bias = b.args.bias->bias;
        }
        if (bn) {
          f.bn_desc = &bn->param;
          f.bn_scale = b.args.bn->scale;
          f.bn_shift = b.args.bn->shift;
          f.bn_mean = b.args.bn->mean;
          f.bn_var = b.args.bn->var;
          f.epsilon = b.args.bn->epsilon;
        }
        const bool scaled = fold_epilogue(h.backend(), f, scale, shift);
        ep.scale = scaled ? scale : nullptr;
        ep.shift = needs.shift ? shift : nullptr;
      }
      if (b.args.residual) {
        ep.residual = b.args.residual->z;
        ep.residual_alpha = b.args.residual->z_alpha;
      }
      ConvBuffers cb;
      cb.x = const_cast<void*>(b.in);
      cb.w = const_cast<void*>(b.args.conv->w);
      cb.y = b.out;
      cb.workspace = conv_ws ? b.workspace : nullptr;
      cb.workspace_size = conv_ws;
      cb.epilogue = &ep;
      conv_run_solution(h, cp, id, cb);
    };
    return inv;
  }
};

}  // namespace

std::unique_ptr<FusionSolver> make_conv_epilogue_fused() {
  return std::make_unique<ConvEpilogueFused>();
}

}  // namespace anydnn
