// Find 2.0 for multi-head-attention problems (miopenCreateMhaProblem): the descriptor's scale,
// forward or backward, the miopenTensorMha* tensors, and at run time the optional mask scalar
// (MIOpen reads miopenTensorMhaMask when given, no mask otherwise). Through the MHA front-end
// (mha/mha_ops.hpp, docs/mha.md): the solutions are its applicable solvers, each timed (MIOpen
// gives every MHA solution a fixed 1 ms instead of measuring). MIOpen logs no driver command for
// MHA problems (it has no MHA driver), and neither do we.
#include <algorithm>

#include "conv/conv_ops.hpp"  // find_time_ms
#include "core/logger.hpp"
#include "find2/operator_adapter.hpp"
#include "mha/mha_ops.hpp"

namespace anydnn::find2 {

namespace {

// MhaTensor carries MIOpen's argument ids (mha/mha_problem.hpp).
static_assert(static_cast<int>(MhaTensor::K) == miopenTensorMhaK);
static_assert(static_cast<int>(MhaTensor::DropoutOffset) == miopenTensorMhaDropoutOffset);
static_assert(static_cast<int>(MhaTensor::ZInv) == miopenTensorMhaZInv);
static_assert(static_cast<int>(MhaTensor::DO) == miopenTensorMhaDO);
static_assert(static_cast<int>(MhaTensor::ScaleDV) == miopenTensorMhaScaleDV);
static_assert(static_cast<int>(MhaTensor::AmaxDS) == miopenTensorMhaAmaxDS);
static_assert(static_cast<int>(MhaTensor::Bias) == miopenTensorMhaBias);
static_assert(kMhaTensorFirst + kMhaTensorCount - 1 == miopenTensorMhaBias);
static_assert(kMhaMaskArgumentId == static_cast<uint32_t>(miopenTensorMhaMask));
static_assert(static_cast<int>(MhaMask::Causal) == miopenMhaMaskCausal);

MhaDirection direction_of(miopenProblemDirection_t d) {
  ANYDNN_CHECK_BADPARM(d == miopenProblemDirectionForward || d == miopenProblemDirectionBackward,
                       "an MHA problem is forward or backward, not " << direction_name(d));
  return d == miopenProblemDirectionForward ? MhaDirection::Forward : MhaDirection::Backward;
}

MhaProblem mha_problem(const Problem& problem) {
  const OperatorProblem& p = problem.single();
  MhaProblem::Descriptors d;
  for (const auto& [id, desc] : p.tensors()) {
    const auto t = mha_tensor_from_id(static_cast<uint32_t>(id));
    ANYDNN_CHECK(t.has_value(), miopenStatusInternalError,
                 tensor_argument_name(id) << " in an MHA problem");  // takes() refused it
    d.emplace(*t, desc);
  }
  return MhaProblem(direction_of(p.direction()), p.op_as<MhaOperator>().scale, std::move(d));
}

// The run's buffers: every tensor of the problem, and the mask when the caller gave one.
MhaBuffers mha_run_buffers(const MhaProblem& p, const RunBuffers& bufs) {
  std::vector<MhaArgument> args;
  for (const auto& [t, desc] : p.descriptors()) {
    const auto id = static_cast<miopenTensorArgumentId_t>(static_cast<int>(t));
    args.push_back({static_cast<uint32_t>(id), bufs.get(id)});
  }
  if (bufs.has(miopenTensorMhaMask))
    args.push_back({kMhaMaskArgumentId, bufs.get(miopenTensorMhaMask)});
  return mha_buffers(p, args);
}

class MhaAdapter final : public OperatorAdapter {
 public:
  bool takes(miopenProblemDirection_t d, miopenTensorArgumentId_t id) const override {
    if (d != miopenProblemDirectionForward && d != miopenProblemDirectionBackward) return false;
    const auto t = mha_tensor_from_id(static_cast<uint32_t>(id));
    return t.has_value() && mha_role(direction_of(d), *t) != MhaRole::None;
  }

  std::vector<miopenTensorArgumentId_t> scalars(const OperatorProblem&) const override {
    return {miopenTensorMhaMask};
  }
  bool scalar_optional(miopenTensorArgumentId_t id) const override {
    return id == miopenTensorMhaMask;
  }

  std::string key(Handle&, const Problem& p) const override { return mha_problem(p).key(); }

  size_t max_workspace(Handle& handle, const Problem& problem) const override {
    const MhaProblem p = mha_problem(problem);
    size_t most = 0;
    for (const MhaSolverEntry* e : applicable_mha_solvers(handle, p))
      most = std::max(most, mha_workspace_size(handle, p, *e));
    return most;
  }

  std::vector<FoundSolver> find(Handle& handle, const Problem& problem, const RunBuffers& bufs,
                                const FindSettings& settings) const override {
    const MhaProblem p = mha_problem(problem);
    const MhaBuffers b = mha_run_buffers(p, bufs);
    const ExecutionContext ctx = handle.context();
    std::vector<FoundSolver> out;
    for (const MhaSolverEntry* e : applicable_mha_solvers(handle, p)) {
      const size_t ws = mha_workspace_size(handle, p, *e);
      if (ws > settings.workspace_limit) {
        ANYDNN_LOG_I2(handle.config(), e->solver->name() << " needs " << ws
                                                         << " bytes of workspace, over the limit "
                                                         << settings.workspace_limit);
        continue;
      }
      const float ms = find_time_ms(handle, [&] { e->solver->run(ctx, p, b, bufs.workspace); });
      out.push_back(
          {solver_id_of(SolverFamily::Mha, e->id), std::string(e->solver->name()), ms, ws});
    }
    return out;
  }

  void run(Handle& handle, const Problem& problem, uint64_t solver_id, const RunBuffers& bufs,
           RunCache&) const override {
    ANYDNN_CHECK_BADPARM(solver_family(solver_id) == SolverFamily::Mha,
                         "solver id " << solver_id << " is not an MHA solver's");
    const MhaProblem p = mha_problem(problem);
    mha_run_solver(handle, p, registry_id(solver_id), mha_run_buffers(p, bufs), bufs.workspace,
                   bufs.workspace_size);
  }
};

}  // namespace

const OperatorAdapter& mha_adapter() {
  static const MhaAdapter adapter;
  return adapter;
}

}  // namespace anydnn::find2
