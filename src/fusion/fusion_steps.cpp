#include "fusion/fusion_steps.hpp"

#include "conv/conv_ops.hpp"

namespace anydnn {

std::optional<miopenConvSolution_t> fusion_conv_solution(
    Handle& handle, const FusionProblem& p,
    const std::function<bool(const ConvSolverEntry&)>& accept) {
  std::optional<miopenConvSolution_t> any, of_algo;
  for (const miopenConvSolution_t& s : conv_solutions(handle, p.conv())) {
    const ConvSolverEntry* e = handle.backend().solvers<ConvSolver>().find(s.solution_id);
    if (e == nullptr || (accept && !accept(*e))) continue;
    if (!any) any = s;
    const auto algo = p.conv_algorithm();
    if (!algo || static_cast<int>(s.algorithm) == static_cast<int>(*algo)) {
      of_algo = s;
      break;
    }
  }
  return of_algo || p.algorithm_required() ? of_algo : any;
}

ActivationProblem fusion_activation_problem(const FusionOp& op, const FusionOpArgs& a,
                                            const TensorDescriptor& desc) {
  ActivDescriptors d;
  d.x = d.y = d.dx = d.dy = &desc;
  return ActivationProblem(
      op.kind == FusionOpKind::ActivBackward ? ActivDirection::Backward : ActivDirection::Forward,
      ActivMode{op.activ_mode, a.activ_alpha, a.activ_beta, a.activ_gamma}, d);
}

FusedActivation fused_activation(const FusionOp& op, const FusionOpArgs& a,
                                 const TensorDescriptor& desc) {
  const ActivationProblem ap = fusion_activation_problem(op, a, desc);
  return FusedActivation{ap.mode(), ap.params()};
}

BnProblem fusion_bn_problem(const FusionProblem& p, const FusionOpArgs& a) {
  // Backward takes no epsilon (miopenSetOpArgsBatchNormBackward has none): the saved inverse
  // standard deviation already holds it.
  if (p.chain() == FusionChain::BnBackwardActiv) return *p.bn();
  return p.bn_with_epsilon(a.epsilon, a.exp_avg_factor);
}

BnBuffers fusion_bn_buffers(const FusionProblem& p, const FusionBuffers& b) {
  const FusionOpArgs& a = *b.args.bn;
  BnBuffers out;
  out.scale = a.scale;
  out.bias = a.shift;
  switch (p.chain()) {
    case FusionChain::BnInferenceActiv:
      out.x = b.in;
      out.y = b.out;
      out.run_mean = const_cast<void*>(a.mean);
      out.run_var = const_cast<void*>(a.var);
      break;
    case FusionChain::BnTrainingActiv:
      out.x = b.in;
      out.y = b.out;
      out.saved_mean = a.saved_mean;
      out.saved_invstd = a.saved_invvar;
      if (p.input_op().running) {
        out.run_mean = a.run_mean;
        out.run_var = a.run_var;
      }
      break;
    case FusionChain::BnBackwardActiv:
      out.x = a.x;
      out.dy = b.in;
      out.dx = b.out;
      out.dscale = a.dscale;
      out.dbias = a.dbias;
      out.saved_mean = const_cast<void*>(a.mean);
      out.saved_invstd = const_cast<void*>(a.var);
      break;
    case FusionChain::Conv:
      break;
  }
  return out;
}

}  // namespace anydnn
