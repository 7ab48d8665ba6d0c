// Find 2.0 for convolution problems: the problem becomes the ConvProblem the legacy calls build
// (X, W and Y are the user's input, weights and output in every direction, as in MIOpen's
// Problem::AsConvolution; a transposed convolution is normalised by ConvProblem itself, as
// MIOpen's MakeTransposed does), and Find, the find-db record and the invokers are the legacy
// API's (conv/conv_ops.hpp): one key, one record.
#include "conv/conv_ops.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "find2/operator_adapter.hpp"

namespace anydnn::find2 {

namespace {

ConvDirection conv_direction(miopenProblemDirection_t d) {
  switch (d) {
    case miopenProblemDirectionBackward:
      return ConvDirection::BackwardData;
    case miopenProblemDirectionBackwardWeights:
      return ConvDirection::BackwardWeights;
    default:
      return ConvDirection::Forward;
  }
}

ConvProblem conv_problem(const Problem& problem) {
  const OperatorProblem& p = problem.single();
  return ConvProblem(conv_direction(p.direction()), p.tensor(miopenTensorConvolutionX),
                     p.tensor(miopenTensorConvolutionW), p.op_as<ConvolutionDescriptor>(),
                     p.tensor(miopenTensorConvolutionY));
}

// The buffers in ConvProblem's forward-sense naming (x and y swap for transposed problems).
ConvBuffers conv_buffers(const ConvProblem& p, const RunBuffers& b) {
  ConvBuffers c;
  void* x = b.get(miopenTensorConvolutionX);
  void* y = b.get(miopenTensorConvolutionY);
  c.x = p.transposed() ? y : x;
  c.w = b.get(miopenTensorConvolutionW);
  c.y = p.transposed() ? x : y;
  c.workspace = b.workspace;
  c.workspace_size = b.workspace == nullptr ? 0 : b.workspace_size;
  return c;
}

class ConvAdapter final : public OperatorAdapter {
 public:
  bool takes(miopenProblemDirection_t, miopenTensorArgumentId_t id) const override {
    return id == miopenTensorConvolutionX || id == miopenTensorConvolutionW ||
           id == miopenTensorConvolutionY;
  }

  std::string key(Handle& handle, const Problem& p) const override { return conv_problem(p).key(); }

  // MIOpen's Problem::LogDriverCommand: LogCmdFindConvolution with solver id 0 (-S 0).
  void log_command(Handle& handle, const Problem& p) const override {
    const Config& cfg = handle.config();
    if (cfg.log_driver_commands)
      log_driver_command(cfg, "LogCmdFindConvolution", conv_problem(p).key() + " -t 1 -S 0");
  }

  // MIOpen's Solution::LogDriverCommand: LogCmdConvolution with the solver (-S <id>).
  void log_run_command(Handle& handle, const Problem& p, uint64_t solver_id) const override {
    const Config& cfg = handle.config();
    if (cfg.log_driver_commands)
      log_driver_command(cfg, "LogCmdConvolution",
                         conv_problem(p).key() + " -t 1 -S " + std::to_string(solver_id));
  }

  size_t max_workspace(Handle& handle, const Problem& p) const override {
    return conv_workspace_size(handle, conv_problem(p));
  }

  std::vector<FoundSolver> find(Handle& handle, const Problem& problem, const RunBuffers& bufs,
                                const FindSettings& settings) const override {
    const ConvProblem p = conv_problem(problem);
    ConvBuffers c = conv_buffers(p, bufs);
    c.workspace_size = std::min(c.workspace_size, settings.workspace_limit);
    std::vector<FoundSolver> out;
    for (const ConvFindEntry& e :
         conv_find_solvers(handle, p, c, settings.exhaustive, "FindSolutions")) {
      out.push_back({e.solver_id, e.solver_name, e.time_ms, e.workspace_size});
    }
    return out;
  }

  void run(Handle& handle, const Problem& problem, uint64_t solver_id, const RunBuffers& bufs,
           RunCache&) const override {
    ANYDNN_CHECK_BADPARM(solver_family(solver_id) == SolverFamily::Convolution,
                         "solver id " << solver_id << " is not a convolution solver's");
    const ConvProblem p = conv_problem(problem);
    conv_run_solution(handle, p, solver_id, conv_buffers(p, bufs));
  }
};

}  // namespace

const OperatorAdapter& convolution_adapter() {
  static const ConvAdapter adapter;
  return adapter;
}

}  // namespace anydnn::find2
