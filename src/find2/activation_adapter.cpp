// Find 2.0 for activation problems (MIOpen's beta miopenCreateActivationProblem, for which
// MIOpen itself finds nothing): the descriptor's mode and parameters, forward on X -> Y,
// backward on X, Y and DY -> DX, through the activation front-end
// (activation/activation_ops.hpp), whose applicable solvers are the solutions.
#include "activation/activation_ops.hpp"
#include "conv/conv_ops.hpp"  // find_time_ms
#include "core/logger.hpp"
#include "find2/operator_adapter.hpp"

namespace anydnn::find2 {

namespace {

ActivationProblem activation_problem(const Problem& problem) {
  const OperatorProblem& p = problem.single();
  ActivDescriptors d;
  d.x = &p.tensor(miopenTensorActivationX);
  d.y = &p.tensor(miopenTensorActivationY);
  const bool fwd = p.direction() == miopenProblemDirectionForward;
  if (!fwd) {
    d.dx = &p.tensor(miopenTensorActivationDX);
    d.dy = &p.tensor(miopenTensorActivationDY);
  }
  return ActivationProblem(fwd ? ActivDirection::Forward : ActivDirection::Backward,
                           p.op_as<ActivMode>(), d);
}

ActivationBuffers activation_buffers(const ActivationProblem& p, const RunBuffers& b) {
  ActivationBuffers a;
  a.x = b.get(miopenTensorActivationX);
  a.y = b.get(miopenTensorActivationY);
  if (!p.forward()) {
    a.dy = b.get(miopenTensorActivationDY);
    a.dx = b.get(miopenTensorActivationDX);
  }
  return a;
}

class ActivationAdapter final : public OperatorAdapter {
 public:
  bool takes(miopenProblemDirection_t d, miopenTensorArgumentId_t id) const override {
    if (id == miopenTensorActivationX || id == miopenTensorActivationY) return true;
    return d == miopenProblemDirectionBackward &&
           (id == miopenTensorActivationDX || id == miopenTensorActivationDY);
  }

  std::string key(Handle&, const Problem& p) const override { return activation_problem(p).key(); }

  void log_command(Handle& handle, const Problem& p) const override {
    const Config& cfg = handle.config();
    if (cfg.log_driver_commands)
      log_driver_command(cfg, "LogCmdActivation", activation_problem(p).key());
  }

  std::vector<FoundSolver> find(Handle& handle, const Problem& problem, const RunBuffers& bufs,
                                const FindSettings&) const override {
    const ActivationProblem p = activation_problem(problem);
    const ActivationBuffers b = activation_buffers(p, bufs);
    const ExecutionContext ctx = handle.context();
    std::vector<FoundSolver> out;
    for (const ActivationSolverEntry* e : activation_solvers_for(handle, p)) {
      const float ms = find_time_ms(handle, [&] { e->solver->run(ctx, p, b); });
      out.push_back(
          {solver_id_of(SolverFamily::Activation, e->id), std::string(e->solver->name()), ms, 0});
    }
    return out;
  }

  void run(Handle& handle, const Problem& problem, uint64_t solver_id, const RunBuffers& bufs,
           RunCache&) const override {
    ANYDNN_CHECK_BADPARM(solver_family(solver_id) == SolverFamily::Activation,
                         "solver id " << solver_id << " is not an activation solver's");
    const ActivationProblem p = activation_problem(problem);
    activation_run_solver(handle, p, registry_id(solver_id), activation_buffers(p, bufs));
  }
};

}  // namespace

const OperatorAdapter& activation_adapter() {
  static const ActivationAdapter adapter;
  return adapter;
}

}  // namespace anydnn::find2
