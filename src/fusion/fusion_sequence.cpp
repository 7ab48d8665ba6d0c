// FusionSequence: the fallback of the fusion registry. Runs every accepted chain as a sequence
// of the library's own primitives through their front-ends (the convolution's immediate-mode
// solution, tensor ops, conv bias, batch norm, activation), on whatever backend the handle has:
// correct for every chain, one pass over memory per operator. Scratch tensors come out of the
// workspace it declares (the plan allocates it once, at compile time).
#include <memory>

#include "activation/activation_ops.hpp"
#include "bn/bn_ops.hpp"
#include "conv/conv_bias.hpp"
#include "conv/conv_ops.hpp"
#include "core/logger.hpp"
#include "fusion/fusion_registry.hpp"
#include "fusion/fusion_steps.hpp"
#include "tensor_ops/tensor_op_ops.hpp"
#include "tensor_ops/tensor_op_problem.hpp"

namespace anydnn {

namespace {

const char* algorithm_name(miopenConvFwdAlgorithm_t a) {
  switch (a) {
    case miopenConvolutionFwdAlgoGEMM:
      return "GEMM";
    case miopenConvolutionFwdAlgoDirect:
      return "Direct";
    case miopenConvolutionFwdAlgoFFT:
      return "FFT";
    case miopenConvolutionFwdAlgoWinograd:
      return "Winograd";
    case miopenConvolutionFwdAlgoImplicitGEMM:
      return "ImplicitGEMM";
  }
  return "unknown";
}

void run_in_place(Handle& handle, const ActivationProblem& p, void* data) {
  ActivationBuffers b;
  b.x = data;
  b.y = data;
  activation_run(handle, p, b);
}

// C = A op (alpha2 * B), for the element-wise steps of the BN backward chain.
void tensor_op(Handle& handle, miopenTensorOp_t op, const TensorDescriptor& a_desc, const void* a,
               const TensorDescriptor& b_desc, const void* b, float alpha2, void* c) {
  const float one = 1.0f, zero = 0.0f;
  const auto p = TensorOpProblem::op_tensor(op, a_desc, b_desc, a_desc, &one, &alpha2, &zero);
  tensor_op_run(handle, p, TensorOpBuffers{a, b, c});
}

void* at(const FusionBuffers& b, size_t offset) {
  return static_cast<char*>(b.workspace) + offset;
}

// conv [+ z] [+ bias] [+ BN inference] [+ activation].
FusionInvoker compile_conv(Handle& handle, const FusionProblem& p) {
  const auto sol = fusion_conv_solution(handle, p);
  ANYDNN_CHECK(sol.has_value(), miopenStatusUnsupportedOp,
               "no " << (p.conv_algorithm() ? algorithm_name(*p.conv_algorithm()) : "")
                     << " solver applies to the fusion plan's convolution");
  const uint64_t id = sol->solution_id;
  const ConvProblem cp = p.conv();
  const size_t conv_ws = conv_solution_workspace_size(handle, cp, id);
  const bool bn = p.find(FusionOpKind::BnInference) != nullptr;
  // With BN the convolution (and bias) go to scratch after the convolution's workspace, BN
  // writes the output.
  const size_t scratch_at = aligned_bytes(conv_ws);
  FusionInvoker inv;
  inv.workspace_size = scratch_at + (bn ? p.output().num_bytes() : 0);
  inv.detail = "conv solution " + std::to_string(id) + " " +
               std::string(handle.backend().solvers<ConvSolver>().find(id)->solver->name());
  inv.run = [p, cp, id, conv_ws, scratch_at](Handle& h, const FusionBuffers& b) {
    const FusionOp* bias = p.find(FusionOpKind::BiasForward);
    const FusionOp* bn = p.find(FusionOpKind::BnInference);
    const FusionOp* act = p.find(FusionOpKind::ActivForward);
    const TensorDescriptor& out = p.output();
    // Every later step's problem is built (and so checked) before the first kernel writes the
    // output: a bad epsilon or activation parameter leaves the caller's memory as it was.
    std::optional<ActivationProblem> ap;
    if (act) ap.emplace(fusion_activation_problem(*act, *b.args.activ, out));
    std::optional<BnProblem> bp;
    if (bn) bp.emplace(fusion_bn_problem(p, *b.args.bn));
    std::optional<TensorOpProblem> scale_step;
    const float conv_alpha = b.args.conv->conv_alpha, zero = 0.0f;
    if (b.args.residual) {
      const FusionOp& z = *p.find(FusionOpKind::TensorScaleAdd);
      scale_step = TensorOpProblem::op_tensor(miopenTensorOpAdd, out, z.param, out, &conv_alpha,
                                              &b.args.residual->z_alpha, &zero);
    } else if (conv_alpha != 1.0f) {
      scale_step = TensorOpProblem::scale_tensor(out, &conv_alpha);
    }

    void* conv_out = bn ? at(b, scratch_at) : b.out;
    // A transposed convolution runs as the normalised backward-data problem: x and y swap.
    ConvBuffers cb;
    cb.x = cp.transposed() ? conv_out : const_cast<void*>(b.in);
    cb.w = const_cast<void*>(b.args.conv->w);
    cb.y = cp.transposed() ? const_cast<void*>(b.in) : conv_out;
    cb.workspace = conv_ws ? b.workspace : nullptr;
    cb.workspace_size = conv_ws;
    conv_run_solution(h, cp, id, cb);
    if (scale_step && b.args.residual)
      tensor_op_run(h, *scale_step, TensorOpBuffers{conv_out, b.args.residual->z, conv_out});
    else if (scale_step)
      tensor_op_run(h, *scale_step, TensorOpBuffers{nullptr, nullptr, conv_out});
    if (bias) conv_bias_forward(h, bias->param, b.args.bias->bias, out, conv_out, 1.0f, 0.0f);
    if (bn) {
      BnBuffers nb;
      nb.x = conv_out;
      nb.y = b.out;
      nb.scale = b.args.bn->scale;
      nb.bias = b.args.bn->shift;
      nb.run_mean = const_cast<void*>(b.args.bn->mean);
      nb.run_var = const_cast<void*>(b.args.bn->var);
      bn_run(h, *bp, nb);
    }
    if (ap) run_in_place(h, *ap, b.out);
  };
  return inv;
}

// BN inference or training, then the activation in place on the output.
FusionInvoker compile_bn_forward(const FusionProblem& p) {
  FusionInvoker inv;
  inv.run = [p](Handle& h, const FusionBuffers& b) {
    const BnProblem bp = fusion_bn_problem(p, *b.args.bn);
    const ActivationProblem ap =
        fusion_activation_problem(p.ops().back(), *b.args.activ, p.output());  // checked first
    bn_run(h, bp, fusion_bn_buffers(p, b));
    run_in_place(h, ap, b.out);
  };
  return inv;
}

// MIOpen's fused BN backward + activation backward recomputes the activation's input
// (bn(x) = scale * (x - mean) * invstd + bias, from the saved statistics) and its output, takes
// the activation's derivative there, then runs BN backward on that gradient: three scratch
// tensors.
FusionInvoker compile_bn_backward(const FusionProblem& p) {
  const size_t bytes = aligned_bytes(p.input().num_bytes());
  FusionInvoker inv;
  inv.workspace_size = 3 * bytes;
  inv.run = [p, bytes](Handle& h, const FusionBuffers& b) {
    const FusionOpArgs& na = *b.args.bn;
    const BnProblem bp = fusion_bn_problem(p, na);
    const TensorDescriptor& d = p.input();  // x, dy, dx and every scratch tensor
    const TensorDescriptor& pd = p.input_op().param;
    const ActivationProblem fwd = [&] {
      FusionOp f = p.ops().back();
      f.kind = FusionOpKind::ActivForward;
      return fusion_activation_problem(f, *b.args.activ, d);
    }();
    const ActivationProblem bwd = fusion_activation_problem(p.ops().back(), *b.args.activ, d);
    void* pre = at(b, 0);
    void* post = at(b, bytes);
    void* grad = at(b, 2 * bytes);
    tensor_op(h, miopenTensorOpAdd, d, na.x, pd, na.mean, -1.0f, pre);
    tensor_op(h, miopenTensorOpMul, d, pre, pd, na.var, 1.0f, pre);
    tensor_op(h, miopenTensorOpMul, d, pre, pd, na.scale, 1.0f, pre);
    tensor_op(h, miopenTensorOpAdd, d, pre, pd, na.shift, 1.0f, pre);
    ActivationBuffers fb;
    fb.x = pre;
    fb.y = post;
    activation_run(h, fwd, fb);
    ActivationBuffers gb;
    gb.y = post;
    gb.dy = b.in;
    gb.x = pre;
    gb.dx = grad;
    activation_run(h, bwd, gb);
    BnBuffers nb = fusion_bn_buffers(p, b);
    nb.dy = grad;
    bn_run(h, bp, nb);
  };
  return inv;
}

class FusionSequence final : public FusionSolver {
 public:
  std::string_view name() const override { return "FusionSequence"; }
  bool fallback_only() const override { return true; }
  Applicability applicable(const ExecutionContext&, const FusionProblem& p) const override {
    // The activation's input is recomputed from x with tensor ops, which take one type.
    ANYDNN_REJECT_IF(
        p.chain() == FusionChain::BnBackwardActiv && p.input_op().param.type() != p.input().type(),
        "BN backward + activation backward in sequence needs parameters of the "
        "data's type");
    return Applicability::yes();
  }
  FusionInvoker compile(Handle& handle, const FusionProblem& p) const override {
    FusionInvoker inv = p.chain() == FusionChain::Conv              ? compile_conv(handle, p)
                        : p.chain() == FusionChain::BnBackwardActiv ? compile_bn_backward(p)
                                                                    : compile_bn_forward(p);
    inv.detail = "no fused kernel, its " + std::to_string(p.ops().size()) +
                 " operators run in sequence" + (inv.detail.empty() ? "" : ", " + inv.detail);
    return inv;
  }
};

}  // namespace

std::unique_ptr<FusionSolver> make_fusion_sequence() {
  return std::make_unique<FusionSequence>();
}

}  // namespace anydnn
