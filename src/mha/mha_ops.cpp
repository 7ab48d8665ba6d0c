#include "mha/mha_ops.hpp"

#include <array>
#include <cstring>
#include <string>

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"
#include "solver/select_solver.hpp"

namespace anydnn {

namespace {

// Data tensors a run needs a buffer for (the bias too when the problem has one).
bool needs_buffer(const MhaProblem& p, MhaTensor t) {
  using T = MhaTensor;
  switch (t) {
    case T::Q:
    case T::K:
    case T::V:
    case T::O:
      return true;
    case T::DO:
    case T::M:
    case T::ZInv:
    case T::DQ:
    case T::DK:
    case T::DV:
      return !p.forward();
    case T::Bias:
      return p.has_bias();
    default:
      return false;
  }
}

void check_workspace(const MhaProblem& p, const MhaSolverEntry& e, size_t need, void* ws,
                     size_t ws_size) {
  ANYDNN_CHECK_BADPARM(ws_size >= need,
                       "the workspace of " << ws_size << " bytes is too small: " << e.solver->name()
                                           << " needs " << need << " for " << p.key());
  ANYDNN_CHECK_BADPARM(need == 0 || ws != nullptr, "the workspace is a null pointer; "
                                                       << e.solver->name() << " needs " << need
                                                       << " bytes");
}

}  // namespace

std::vector<const MhaSolverEntry*> applicable_mha_solvers(Handle& handle, const MhaProblem& p) {
  const ExecutionContext ctx = handle.context();
  std::vector<const MhaSolverEntry*> main, fallbacks;
  for (const auto& e : handle.backend().solvers<MhaSolver>().entries()) {
    const Applicability a = e.solver->applicable(ctx, p);
    if (!a) {
      ANYDNN_LOG_I2(handle.config(), e.solver->name() << " not applicable: " << a.reason);
      continue;
    }
    (e.solver->fallback_only() ? fallbacks : main).push_back(&e);
  }
  return main.empty() ? fallbacks : main;
}

const MhaSolverEntry& select_mha_solver(Handle& handle, const MhaProblem& p) {
  return select_first_applicable(handle.backend().solvers<MhaSolver>(), handle.context(), p,
                                 "multi-head attention");
}

size_t mha_workspace_size(Handle& handle, const MhaProblem& p, const MhaSolverEntry& e) {
  return e.solver->workspace_size(handle.context(), p);
}

MhaBuffers mha_buffers(const MhaProblem& p, const std::vector<MhaArgument>& args) {
  MhaBuffers b;
  std::array<bool, kMhaTensorCount> given{};
  bool mask_given = false;
  const char* dir = p.forward() ? "forward" : "backward";
  for (const MhaArgument& a : args) {
    if (a.id == kMhaMaskArgumentId) {
      ANYDNN_CHECK_BADPARM(!mask_given, "miopenTensorMhaMask is given twice");
      ANYDNN_CHECK_BADPARM(a.buffer != nullptr,
                           "miopenTensorMhaMask's buffer is a null pointer (it must point to a "
                           "miopenMhaMask_t)");
      int value = 0;
      std::memcpy(&value, a.buffer, sizeof value);  // an enum: int-sized
      ANYDNN_CHECK_BADPARM(value == 0 || value == 1, "miopenTensorMhaMask holds "
                                                         << value
                                                         << ", not a miopenMhaMask_t (0 none, 1 "
                                                            "causal)");
      b.mask = static_cast<MhaMask>(value);
      mask_given = true;
      continue;
    }
    const auto t = mha_tensor_from_id(a.id);
    ANYDNN_CHECK_BADPARM(t.has_value() && mha_role(p.direction(), *t) != MhaRole::None,
                         "argument id "
                             << a.id
                             << (t ? std::string(" (") + mha_tensor_name(*t) + ")" : std::string())
                             << " is not an argument of a " << dir << " MHA problem");
    ANYDNN_CHECK_BADPARM(*t != MhaTensor::Bias || p.has_bias(),
                         "miopenTensorMhaBias is given but the problem has no bias descriptor");
    ANYDNN_CHECK_BADPARM(!given[mha_slot(*t)], mha_tensor_name(*t) << " is given twice");
    ANYDNN_CHECK_BADPARM(a.buffer != nullptr || !needs_buffer(p, *t),
                         mha_tensor_name(*t) << "'s buffer is a null pointer");
    given[mha_slot(*t)] = true;
    b.ptr[mha_slot(*t)] = a.buffer;
  }
  for (int i = 0; i < kMhaTensorCount; ++i) {
    const auto t = static_cast<MhaTensor>(kMhaTensorFirst + i);
    const MhaRole role = mha_role(p.direction(), t);
    ANYDNN_CHECK(given[i] || role != MhaRole::Required, miopenStatusInvalidValue,
                 "Problem is missing " << mha_tensor_name(t) << " tensor argument.");
    ANYDNN_CHECK_BADPARM(given[i] || !needs_buffer(p, t),
                         "miopenTensorMhaBias has a descriptor but no buffer");
  }
  return b;
}

void mha_run(Handle& handle, const MhaProblem& p, const MhaSolverEntry& e, const MhaBuffers& b,
             void* workspace, size_t workspace_size) {
  const ExecutionContext ctx = handle.context();
  check_workspace(p, e, e.solver->workspace_size(ctx, p), workspace, workspace_size);
  ANYDNN_LOG_I2(handle.config(),
                "mha " << p.key() << ": " << e.solver->name() << (b.causal() ? " (causal)" : ""));
  handle.record_kernel_time(handle.run_primitive([&] { e.solver->run(ctx, p, b, workspace); }));
}

void mha_run_solver(Handle& handle, const MhaProblem& p, uint64_t id, const MhaBuffers& b,
                    void* workspace, size_t workspace_size) {
  const MhaSolverEntry* e = handle.backend().solvers<MhaSolver>().find(id);
  ANYDNN_CHECK_BADPARM(e != nullptr, "solver id " << id << " is not an MHA solver of this backend");
  const Applicability a = e->solver->applicable(handle.context(), p);
  ANYDNN_CHECK_BADPARM(a, e->solver->name()
                              << " does not apply to " << p.key() << ": " << a.reason);
  mha_run(handle, p, *e, b, workspace, workspace_size);
}

}  // namespace anydnn
