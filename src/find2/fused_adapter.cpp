// Find 2.0 for fused problems (miopenFuseProblems), through the fusion-plan machinery only by its
// public interface (fusion/fusion_plan.hpp), as MIOpen's FusedProblem turns into a fusion plan:
// each part becomes the plan's operator (convolution forward, bias forward, activation forward
// or backward, batch norm forward training, inference or backward), the plan is compiled (which
// accepts the chains MIOpen fuses, UnsupportedOp naming the chain otherwise) and executed with
// operator arguments built from the run's buffers. The run's arguments are the chain's input and
// output and each part's other tensors and scalars (MIOpen's FusedProblem::MakeInvokeParams).
//
// Solutions: a chain with a convolution has one per forward convolution algorithm the compiled
// plan accepts (miopenFusionPlanConvolutionSetAlgo), timed; other chains one. Their solver ids
// are solver_id_of(SolverFamily::Fusion, 1 + algorithm) and solver_id_of(Fusion, kNoConv).
#include <memory>
#include <sstream>

#include "conv/conv_ops.hpp"  // find_time_ms
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "find2/operator_adapter.hpp"
#include "fusion/fusion_plan.hpp"

namespace anydnn::find2 {

namespace {

constexpr uint64_t kNoConv = 0x100;

const char* algorithm_text(miopenConvFwdAlgorithm_t a) {
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

std::string part_name(const OperatorProblem& p) {
  return std::string(direction_name(p.direction())) + " " + operator_kind_name(p.kind());
}

std::string chain_of(const Problem& problem) {
  std::string s;
  for (const auto& p : problem.parts())
    s += (s.empty() ? "" : " + ") + part_name(p);
  return s;
}

FusionOp fusion_op(const OperatorProblem& p, const Problem& problem) {
  FusionOp op;
  const auto unsupported = [&] {
    ANYDNN_THROW(miopenStatusUnsupportedOp, "fused problem " << chain_of(problem) << ": a "
                                                             << part_name(p)
                                                             << " problem cannot be fused");
  };
  switch (p.kind()) {
    case OperatorKind::Convolution:
      if (p.direction() != miopenProblemDirectionForward) unsupported();
      op.kind = FusionOpKind::ConvForward;
      op.conv = p.op_as<ConvolutionDescriptor>();
      op.w = p.tensor(miopenTensorConvolutionW);
      break;
    case OperatorKind::Bias:
      if (p.direction() != miopenProblemDirectionForward) unsupported();
      op.kind = FusionOpKind::BiasForward;
      op.param = p.tensor(miopenTensorBias);
      break;
    case OperatorKind::Activation:
      op.kind = p.direction() == miopenProblemDirectionForward ? FusionOpKind::ActivForward
                                                               : FusionOpKind::ActivBackward;
      op.activ_mode = p.op_as<ActivMode>().mode;
      break;
    case OperatorKind::Batchnorm: {
      const auto& bn = p.op_as<BatchnormOperator>();
      op.bn_mode = bn.mode;
      // The tensors the fused kernel reads (operator_args below): InvalidValue naming the
      // first one missing.
      for (const auto id : {miopenTensorBatchnormScale, miopenTensorBatchnormBias})
        p.tensor(id);
      if (p.direction() == miopenProblemDirectionForward) {
        op.kind = FusionOpKind::BnForwardTraining;
        op.running = bn.running_mean_variance;
        for (const auto id : {miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance})
          p.tensor(id);
        if (op.running)
          for (const auto id :
               {miopenTensorBatchnormRunningMean, miopenTensorBatchnormRunningVariance})
            p.tensor(id);
      } else if (p.direction() == miopenProblemDirectionInference) {
        op.kind = FusionOpKind::BnInference;
        op.param = p.tensor(miopenTensorBatchnormEstimatedMean);
        p.tensor(miopenTensorBatchnormEstimatedVariance);
      } else {
        op.kind = FusionOpKind::BnBackward;
        for (const auto id :
             {miopenTensorBatchnormX, miopenTensorBatchnormScaleDiff, miopenTensorBatchnormBiasDiff,
              miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance})
          p.tensor(id);
      }
      break;
    }
    default:
      unsupported();
  }
  return op;
}

// The plan of a fused problem, with every descriptor checked against what the chain computes.
std::unique_ptr<FusionPlan> make_plan(const Problem& problem) {
  const auto& parts = problem.parts();
  for (size_t i = 1; i < parts.size(); ++i) {
    const OperatorProblem &prev = parts[i - 1], &cur = parts[i];
    if (prev.has(prev.output_id()) && cur.has(cur.input_id()))
      ANYDNN_CHECK_BADPARM(prev.tensor(prev.output_id()) == cur.tensor(cur.input_id()),
                           "fused problem " << chain_of(problem) << ": the " << part_name(cur)
                                            << " input " << tensor_argument_name(cur.input_id())
                                            << " is not the " << part_name(prev) << " output "
                                            << tensor_argument_name(prev.output_id()));
  }
  const OperatorProblem& first = parts.front();
  auto plan = std::make_unique<FusionPlan>(miopenVerticalFusion, first.tensor(first.input_id()));
  for (const auto& part : parts)
    plan->add(fusion_op(part, problem));
  const OperatorProblem& last = parts.back();
  ANYDNN_CHECK_BADPARM(last.tensor(last.output_id()) == plan->output(),
                       "fused problem " << chain_of(problem) << ": its output "
                                        << tensor_argument_name(last.output_id())
                                        << " is not the tensor the chain produces (lengths, "
                                           "strides and type of the convolution's output in "
                                           "the input's layout)");
  return plan;
}

double scalar_or(const RunBuffers& b, miopenTensorArgumentId_t id, double fallback) {
  return b.has(id) ? b.scalar<double>(id) : fallback;
}

// miopenSetOpArgs* for every operator, from the run's buffers.
OperatorArgs operator_args(const FusionPlan& plan, const Problem& problem, const RunBuffers& b) {
  OperatorArgs args;
  const auto& parts = problem.parts();
  for (int i = 0; i < plan.size(); ++i) {
    const FusionOp& op = plan.op(i);
    const OperatorProblem& part = parts[static_cast<size_t>(i)];
    FusionOpArgs& a = args.of(op);
    switch (op.kind) {
      case FusionOpKind::ConvForward:
        a.w = b.get(miopenTensorConvolutionW);
        break;
      case FusionOpKind::BiasForward:
        a.bias = b.get(miopenTensorBias);
        break;
      case FusionOpKind::ActivForward:
      case FusionOpKind::ActivBackward: {
        const auto& m = part.op_as<ActivMode>();
        a.activ_alpha = m.alpha;
        a.activ_beta = m.beta;
        a.activ_gamma = m.gamma;
        break;
      }
      case FusionOpKind::BnInference:
        a.scale = b.get(miopenTensorBatchnormScale);
        a.shift = b.get(miopenTensorBatchnormBias);
        a.mean = b.get(miopenTensorBatchnormEstimatedMean);
        a.var = b.get(miopenTensorBatchnormEstimatedVariance);
        a.epsilon = scalar_or(b, miopenScalarBatchnormEpsilon, 0.0);
        break;
      case FusionOpKind::BnForwardTraining:
        a.scale = b.get(miopenTensorBatchnormScale);
        a.shift = b.get(miopenTensorBatchnormBias);
        a.saved_mean = b.get(miopenTensorBatchnormSavedMean);
        a.saved_invvar = b.get(miopenTensorBatchnormSavedVariance);
        if (op.running) {
          a.run_mean = b.get(miopenTensorBatchnormRunningMean);
          a.run_var = b.get(miopenTensorBatchnormRunningVariance);
        }
        a.exp_avg_factor = scalar_or(b, miopenScalarBatchnormExpAvgFactor, 0.0);
        a.epsilon = scalar_or(b, miopenScalarBatchnormEpsilon, 0.0);
        break;
      case FusionOpKind::BnBackward:
        a.x = b.get(miopenTensorBatchnormX);
        a.scale = b.get(miopenTensorBatchnormScale);
        a.shift = b.get(miopenTensorBatchnormBias);
        a.dscale = b.get(miopenTensorBatchnormScaleDiff);
        a.dbias = b.get(miopenTensorBatchnormBiasDiff);
        a.mean = b.get(miopenTensorBatchnormSavedMean);
        a.var = b.get(miopenTensorBatchnormSavedVariance);
        break;
      case FusionOpKind::TensorScaleAdd:
        // Only the one-call miopenConvolutionBiasActivationForward adds z; no Find 2.0 problem
        // kind fuses into it, so a fused problem never holds one.
        break;
    }
  }
  return args;
}

void execute(Handle& handle, FusionPlan& plan, const Problem& problem, const RunBuffers& b) {
  const OperatorArgs args = operator_args(plan, problem, b);
  plan.execute(handle, plan.input(), b.get(problem.input_id()), plan.output(),
               b.get(problem.output_id()), args);
}

bool has_conv(const Problem& problem) {
  return problem.parts().front().kind() == OperatorKind::Convolution;
}

// A compiled plan kept with a solution for the handle it was compiled for (and that handle's
// device, in case a later handle reuses its address).
struct CompiledPlan {
  const Handle* handle = nullptr;
  std::string device_id;
  std::unique_ptr<FusionPlan> plan;
};

class FusedAdapter final : public OperatorAdapter {
 public:
  bool takes(miopenProblemDirection_t, miopenTensorArgumentId_t) const override { return false; }

  // The fused chain's canonical key: the fusion problem's (MIOpen's LogCmdFusion line,
  // fusion/fusion_problem.hpp), the one the fusion-plan API logs for the same chain.
  std::string key(Handle& handle, const Problem& problem) const override {
    auto plan = make_plan(problem);
    plan->compile(handle);
    return plan->key();
  }

  // MIOpen logs no driver line for a fused Find 2.0 problem (its Solution::LogDriverCommand is
  // a to-do there); ours is the line miopenExecuteFusionPlan logs for the same chain, so the
  // run replays on MIOpenDriver CBAInfer where the chain is one of its modes.
  void log_command(Handle& handle, const Problem& problem) const override {
    const Config& cfg = handle.config();
    if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdFusion", key(handle, problem));
  }
  // (Compiles a plan to get the key: only when command logging is on.)
  void log_run_command(Handle& handle, const Problem& problem, uint64_t) const override {
    log_command(handle, problem);
  }

  std::vector<FoundSolver> find(Handle& handle, const Problem& problem, const RunBuffers& bufs,
                                const FindSettings&) const override {
    auto plan = make_plan(problem);
    std::vector<FoundSolver> out;
    const auto time_plan = [&](uint64_t id, const std::string& name) {
      plan->compile(handle);
      const float ms = find_time_ms(handle, [&] { execute(handle, *plan, problem, bufs); });
      out.push_back({solver_id_of(SolverFamily::Fusion, id), name, ms, 0});
    };
    if (!has_conv(problem)) {
      time_plan(kNoConv, plan->chain_name());
      return out;
    }
    std::string rejected;
    for (const miopenConvFwdAlgorithm_t algo : plan->conv_algorithms()) {
      plan->set_conv_algorithm(algo);
      try {
        time_plan(1 + static_cast<uint64_t>(algo), plan->chain_name() + "/" + algorithm_text(algo));
      } catch (const Error& e) {
        if (e.status() != miopenStatusUnsupportedOp) throw;
        ANYDNN_LOG_I2(handle.config(), "fusion plan " << plan->chain_name() << " with "
                                                      << algorithm_text(algo) << ": "
                                                      << e.message());
        rejected += std::string(rejected.empty() ? "" : "; ") + e.message();
      }
    }
    ANYDNN_CHECK(!out.empty(), miopenStatusUnsupportedOp,
                 "no convolution algorithm compiles for fused problem " << chain_of(problem) << ": "
                                                                        << rejected);
    return out;
  }

  void run(Handle& handle, const Problem& problem, uint64_t solver_id, const RunBuffers& bufs,
           RunCache& cache) const override {
    ANYDNN_CHECK_BADPARM(solver_family(solver_id) == SolverFamily::Fusion,
                         "solver id " << solver_id << " is not a fusion solution's");
    const uint64_t id = registry_id(solver_id);
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto compiled = std::static_pointer_cast<CompiledPlan>(cache.state);
    if (!compiled || compiled->handle != &handle ||
        compiled->device_id != handle.backend().device_id()) {
      auto plan = make_plan(problem);
      if (has_conv(problem)) {
        ANYDNN_CHECK_BADPARM(id >= 1 && id <= 1 + miopenConvolutionFwdAlgoImplicitGEMM,
                             "solver id " << solver_id << " names no convolution algorithm");
        plan->set_conv_algorithm(static_cast<miopenConvFwdAlgorithm_t>(id - 1));
      } else {
        ANYDNN_CHECK_BADPARM(id == kNoConv,
                             "solver id " << solver_id << " is not this chain's solution");
      }
      plan->compile(handle);
      compiled = std::make_shared<CompiledPlan>();
      compiled->handle = &handle;
      compiled->device_id = handle.backend().device_id();
      compiled->plan = std::move(plan);
      cache.state = compiled;
    }
    execute(handle, *compiled->plan, problem, bufs);
  }
};

}  // namespace

const OperatorAdapter& fusion_adapter() {
  static const FusedAdapter adapter;
  return adapter;
}

}  // namespace anydnn::find2
