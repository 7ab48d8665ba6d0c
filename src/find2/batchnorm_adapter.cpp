// Find 2.0 for batch-normalization problems (MIOpen's beta miopenCreateBatchnormProblem, for
// which MIOpen itself finds nothing unfused), through the batch-norm front-end (bn/bn_ops.hpp),
// whose applicable solvers are the solutions:
//   forward (training): X, Scale, Bias -> Y; SavedMean / SavedVariance written when both are
//     set; RunningMean / RunningVariance updated when the problem was created with
//     runningMeanVariance (then both are needed); scalars ExpAvgFactor and Epsilon;
//   inference: X, Scale, Bias, EstimatedMean, EstimatedVariance -> Y; scalar Epsilon;
//   backward: X, DY, Scale -> DX, ScaleDiff, BiasDiff, with SavedMean / SavedVariance when both
//     are set (else the statistics are recomputed, with scalar Epsilon); Bias may be set (MIOpen's
//     fused backward takes it) and is not read.
// Scalars are host doubles, as MIOpen's fused batch norm reads them.
#include "bn/bn_ops.hpp"
#include "conv/conv_ops.hpp"  // find_time_ms
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "find2/operator_adapter.hpp"

namespace anydnn::find2 {

namespace {

bool has_saved(const OperatorProblem& p) {
  return p.has(miopenTensorBatchnormSavedMean) && p.has(miopenTensorBatchnormSavedVariance);
}

std::vector<miopenTensorArgumentId_t> bn_scalars(const OperatorProblem& p) {
  switch (p.direction()) {
    case miopenProblemDirectionForward:
      return {miopenScalarBatchnormExpAvgFactor, miopenScalarBatchnormEpsilon};
    case miopenProblemDirectionBackward:
      if (has_saved(p)) return {};
      return {miopenScalarBatchnormEpsilon};
    default:
      return {miopenScalarBatchnormEpsilon};
  }
}

// The problem; the scalars (epsilon, average factor) come from `bufs` when given, else 0 (only
// the descriptors are checked then).
BnProblem bn_problem(const Problem& problem, const RunBuffers* bufs) {
  const OperatorProblem& p = problem.single();
  const auto& op = p.op_as<BatchnormOperator>();
  const auto scalar = [&](miopenTensorArgumentId_t id) {
    return bufs != nullptr && bufs->has(id) ? bufs->scalar<double>(id) : 0.0;
  };
  const auto pair = [&](miopenTensorArgumentId_t a, miopenTensorArgumentId_t b, const char* what) {
    ANYDNN_CHECK_BADPARM(p.has(a) == p.has(b), "only one of the " << what
                                                                  << " descriptors is set: set "
                                                                     "both or neither");
    return p.has(a);
  };
  BnDescriptors d;
  d.x = &p.tensor(miopenTensorBatchnormX);
  d.scale = &p.tensor(miopenTensorBatchnormScale);
  const double epsilon = scalar(miopenScalarBatchnormEpsilon);
  switch (p.direction()) {
    case miopenProblemDirectionForward: {
      d.y = &p.tensor(miopenTensorBatchnormY);
      d.bias = &p.tensor(miopenTensorBatchnormBias);
      const bool save =
          pair(miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance, "saved");
      const bool running =
          pair(miopenTensorBatchnormRunningMean, miopenTensorBatchnormRunningVariance, "running");
      ANYDNN_CHECK_BADPARM(running || !op.running_mean_variance,
                           "the problem was created with runningMeanVariance: "
                               << tensor_argument_name(miopenTensorBatchnormRunningMean) << " and "
                               << tensor_argument_name(miopenTensorBatchnormRunningVariance)
                               << " must be set");
      ANYDNN_CHECK_BADPARM(!running || op.running_mean_variance,
                           "running mean / variance descriptors are set but the problem was "
                           "created without runningMeanVariance");
      d.mean = save      ? &p.tensor(miopenTensorBatchnormSavedMean)
               : running ? &p.tensor(miopenTensorBatchnormRunningMean)
                         : d.scale;
      d.var = save      ? &p.tensor(miopenTensorBatchnormSavedVariance)
              : running ? &p.tensor(miopenTensorBatchnormRunningVariance)
                        : d.scale;
      return BnProblem(BnDirection::ForwardTraining, op.mode, d, epsilon,
                       scalar(miopenScalarBatchnormExpAvgFactor), save, running);
    }
    case miopenProblemDirectionInference:
      d.y = &p.tensor(miopenTensorBatchnormY);
      d.bias = &p.tensor(miopenTensorBatchnormBias);
      d.mean = &p.tensor(miopenTensorBatchnormEstimatedMean);
      d.var = &p.tensor(miopenTensorBatchnormEstimatedVariance);
      return BnProblem(BnDirection::ForwardInference, op.mode, d, epsilon, 0.0, false, true);
    default: {
      d.y = &p.tensor(miopenTensorBatchnormDY);
      d.dx = &p.tensor(miopenTensorBatchnormDX);
      d.bias = &p.tensor(miopenTensorBatchnormBiasDiff);
      p.tensor(miopenTensorBatchnormScaleDiff);  // required
      const bool saved =
          pair(miopenTensorBatchnormSavedMean, miopenTensorBatchnormSavedVariance, "saved");
      d.mean = saved ? &p.tensor(miopenTensorBatchnormSavedMean) : d.scale;
      d.var = saved ? &p.tensor(miopenTensorBatchnormSavedVariance) : d.scale;
      return BnProblem(BnDirection::Backward, op.mode, d, epsilon, 0.0, saved, false);
    }
  }
}

BnBuffers bn_buffers(const BnProblem& p, const RunBuffers& b) {
  BnBuffers n;
  n.x = b.get(miopenTensorBatchnormX);
  n.scale = b.get(miopenTensorBatchnormScale);
  switch (p.direction()) {
    case BnDirection::ForwardTraining:
      n.y = b.get(miopenTensorBatchnormY);
      n.bias = b.get(miopenTensorBatchnormBias);
      if (p.running()) {
        n.run_mean = b.get(miopenTensorBatchnormRunningMean);
        n.run_var = b.get(miopenTensorBatchnormRunningVariance);
      }
      if (p.save()) {
        n.saved_mean = b.get(miopenTensorBatchnormSavedMean);
        n.saved_invstd = b.get(miopenTensorBatchnormSavedVariance);
      }
      break;
    case BnDirection::ForwardInference:
      n.y = b.get(miopenTensorBatchnormY);
      n.bias = b.get(miopenTensorBatchnormBias);
      n.run_mean = b.get(miopenTensorBatchnormEstimatedMean);
      n.run_var = b.get(miopenTensorBatchnormEstimatedVariance);
      break;
    case BnDirection::Backward:
      n.dy = b.get(miopenTensorBatchnormDY);
      n.dx = b.get(miopenTensorBatchnormDX);
      n.dscale = b.get(miopenTensorBatchnormScaleDiff);
      n.dbias = b.get(miopenTensorBatchnormBiasDiff);
      if (p.save()) {
        n.saved_mean = b.get(miopenTensorBatchnormSavedMean);
        n.saved_invstd = b.get(miopenTensorBatchnormSavedVariance);
      }
      break;
  }
  return n;
}

class BatchnormAdapter final : public OperatorAdapter {
 public:
  bool takes(miopenProblemDirection_t d, miopenTensorArgumentId_t id) const override {
    switch (id) {
      case miopenTensorBatchnormX:
      case miopenTensorBatchnormScale:
      case miopenTensorBatchnormBias:
        return true;
      case miopenTensorBatchnormY:
        return d != miopenProblemDirectionBackward;
      case miopenTensorBatchnormSavedMean:
      case miopenTensorBatchnormSavedVariance:
        return d != miopenProblemDirectionInference;
      case miopenTensorBatchnormRunningMean:
      case miopenTensorBatchnormRunningVariance:
        return d == miopenProblemDirectionForward;
      case miopenTensorBatchnormEstimatedMean:
      case miopenTensorBatchnormEstimatedVariance:
        return d == miopenProblemDirectionInference;
      case miopenTensorBatchnormDX:
      case miopenTensorBatchnormDY:
      case miopenTensorBatchnormScaleDiff:
      case miopenTensorBatchnormBiasDiff:
        return d == miopenProblemDirectionBackward;
      default:
        return false;
    }
  }

  std::vector<miopenTensorArgumentId_t> scalars(const OperatorProblem& part) const override {
    return bn_scalars(part);
  }

  std::string key(Handle&, const Problem& p) const override { return bn_problem(p, nullptr).key(); }

  void log_command(Handle& handle, const Problem& p) const override {
    const Config& cfg = handle.config();
    if (cfg.log_driver_commands)
      log_driver_command(cfg, "LogCmdBNorm", bn_problem(p, nullptr).key());
  }

  std::vector<FoundSolver> find(Handle& handle, const Problem& problem, const RunBuffers& bufs,
                                const FindSettings&) const override {
    const BnProblem p = bn_problem(problem, &bufs);
    const BnBuffers b = bn_buffers(p, bufs);
    const ExecutionContext ctx = handle.context();
    std::vector<FoundSolver> out;
    for (const BnSolverEntry* e : bn_solvers_for(handle, p)) {
      const float ms = find_time_ms(handle, [&] { e->solver->run(ctx, p, b); });
      out.push_back(
          {solver_id_of(SolverFamily::Batchnorm, e->id), std::string(e->solver->name()), ms, 0});
    }
    return out;
  }

  void run(Handle& handle, const Problem& problem, uint64_t solver_id, const RunBuffers& bufs,
           RunCache&) const override {
    ANYDNN_CHECK_BADPARM(solver_family(solver_id) == SolverFamily::Batchnorm,
                         "solver id " << solver_id << " is not a batch-normalization solver's");
    const BnProblem p = bn_problem(problem, &bufs);
    bn_run_solver(handle, p, registry_id(solver_id), bn_buffers(p, bufs));
  }
};

}  // namespace

const OperatorAdapter& batchnorm_adapter() {
  static const BatchnormAdapter adapter;
  return adapter;
}

}  // namespace anydnn::find2
