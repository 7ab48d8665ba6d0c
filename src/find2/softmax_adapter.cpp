// Find 2.0 for softmax problems (MIOpen's miopenCreateSoftmaxProblem): the descriptor's
// algorithm, mode, alpha and beta, forward on X -> Y, backward on Y and DY -> DX, through the
// softmax front-end (softmax/softmax_ops.hpp). The solutions are its applicable solvers, each
// timed (MIOpen gives its two fixed times instead of measuring).
#include "conv/conv_ops.hpp"  // find_time_ms
#include "core/logger.hpp"
#include "find2/operator_adapter.hpp"
#include "softmax/softmax_ops.hpp"

namespace anydnn::find2 {

namespace {

SoftmaxProblem softmax_problem(const Problem& problem) {
  const OperatorProblem& p = problem.single();
  const auto& op = p.op_as<SoftmaxOperator>();
  SoftmaxDescriptors d;
  const bool fwd = p.direction() == miopenProblemDirectionForward;
  if (fwd) {
    d.x = &p.tensor(miopenTensorSoftmaxX);
    d.y = &p.tensor(miopenTensorSoftmaxY);
  } else {
    d.y = &p.tensor(miopenTensorSoftmaxY);
    d.dy = &p.tensor(miopenTensorSoftmaxDY);
    d.dx = &p.tensor(miopenTensorSoftmaxDX);
  }
  return SoftmaxProblem(fwd ? SoftmaxDirection::Forward : SoftmaxDirection::Backward, op.algorithm,
                        op.mode, d, op.alpha, op.beta);
}

SoftmaxBuffers softmax_buffers(const SoftmaxProblem& p, const RunBuffers& b) {
  SoftmaxBuffers s;
  s.y = b.get(miopenTensorSoftmaxY);
  if (p.forward()) {
    s.x = b.get(miopenTensorSoftmaxX);
  } else {
    s.dy = b.get(miopenTensorSoftmaxDY);
    s.dx = b.get(miopenTensorSoftmaxDX);
  }
  return s;
}

class SoftmaxAdapter final : public OperatorAdapter {
 public:
  bool takes(miopenProblemDirection_t d, miopenTensorArgumentId_t id) const override {
    if (d == miopenProblemDirectionForward)
      return id == miopenTensorSoftmaxX || id == miopenTensorSoftmaxY;
    return id == miopenTensorSoftmaxY || id == miopenTensorSoftmaxDY || id == miopenTensorSoftmaxDX;
  }

  std::string key(Handle&, const Problem& p) const override { return softmax_problem(p).key(); }

  void log_command(Handle& handle, const Problem& p) const override {
    const Config& cfg = handle.config();
    if (cfg.log_driver_commands) log_driver_command(cfg, "LogCmdSoftmax", softmax_problem(p).key());
  }

  std::vector<FoundSolver> find(Handle& handle, const Problem& problem, const RunBuffers& bufs,
                                const FindSettings&) const override {
    const SoftmaxProblem p = softmax_problem(problem);
    const SoftmaxBuffers b = softmax_buffers(p, bufs);
    const ExecutionContext ctx = handle.context();
    std::vector<FoundSolver> out;
    for (const SoftmaxSolverEntry* e : softmax_solvers_for(handle, p)) {
      const float ms = find_time_ms(handle, [&] { e->solver->run(ctx, p, b); });
      out.push_back(
          {solver_id_of(SolverFamily::Softmax, e->id), std::string(e->solver->name()), ms, 0});
    }
    return out;
  }

  void run(Handle& handle, const Problem& problem, uint64_t solver_id, const RunBuffers& bufs,
           RunCache&) const override {
    ANYDNN_CHECK_BADPARM(solver_family(solver_id) == SolverFamily::Softmax,
                         "solver id " << solver_id << " is not a softmax solver's");
    const SoftmaxProblem p = softmax_problem(problem);
    softmax_run_solver(handle, p, registry_id(solver_id), softmax_buffers(p, bufs));
  }
};

}  // namespace

const OperatorAdapter& softmax_adapter() {
  static const SoftmaxAdapter adapter;
  return adapter;
}

}  // namespace anydnn::find2
