// Find 2.0 per operator kind: an adapter connects a problem of one kind to that primitive's
// front-end (its problem class, key, solvers and run), so that miopenFindSolutions and
// miopenRunSolution (find2/find2_ops.cpp) never name a primitive.
//
// Adding an operator kind (the MHA one, say):
//   1. one file, find2/<kind>_adapter.cpp: a class deriving from OperatorAdapter that answers
//      which tensor ids the operator takes, checks a problem and gives its key, finds (times its
//      family's applicable solvers through the front-end, e.g. src/mha/mha_ops.hpp) and runs
//      one solver on buffers keyed by miopenTensorArgumentId_t; plus its accessor,
//      `const OperatorAdapter& <kind>_adapter();`;
//   2. one line in find2/adapters.cpp (operator_adapter()), replacing the pending entry.
// Solver ids: convolution solutions carry the conv registry's id (miopenConvSolution_t's
// solution_id); every other kind tags its family's registry id with solver_id_of() below, so
// that ids stay unique across primitives, as MIOpen's are.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "find2/find2_problem.hpp"
#include "handle/handle.hpp"

namespace anydnn::find2 {

// What the options ask of one Find (miopenFindOptions_t, minus what find2_ops handles itself).
struct FindSettings {
  bool exhaustive = false;  // miopenSetFindOptionTuning
  size_t workspace_limit = std::numeric_limits<size_t>::max();
};

// The buffers of one run, or of Find's measurements, by argument id: device memory for
// tensors, a host pointer for scalars. Adapters ask only for their problem's arguments, which
// find2_ops has checked are all present.
class RunBuffers {
 public:
  void set(miopenTensorArgumentId_t id, void* p) { ptrs_[id] = p; }
  bool has(miopenTensorArgumentId_t id) const { return ptrs_.count(id) != 0; }
  void* get(miopenTensorArgumentId_t id) const;  // InternalError when absent
  template <class T>
  T scalar(miopenTensorArgumentId_t id) const {
    T v;
    std::memcpy(&v, get(id), sizeof v);
    return v;
  }
  void* workspace = nullptr;
  size_t workspace_size = 0;

 private:
  std::map<miopenTensorArgumentId_t, void*> ptrs_;
};

// One solution Find produced.
struct FoundSolver {
  uint64_t solver_id = 0;
  std::string solver_name;
  float time_ms = 0.0f;  // measured, or a find-db record's; negative: not measured
  size_t workspace_size = 0;
};

// State an adapter keeps with a solution between runs (the fused adapter's compiled plan),
// created on the first run; guarded by `mutex`, as runs of one solution may come from several
// threads.
struct RunCache {
  std::mutex mutex;
  std::shared_ptr<void> state;
};

// The families of solver ids (see the header comment); Convolution ids are untagged.
enum class SolverFamily : uint32_t {
  Convolution = 0,
  Activation = 2,
  Bias = 3,
  Softmax = 4,
  Mha = 5,
  Batchnorm = 6,
  Fusion = 7,
};
constexpr uint64_t solver_id_of(SolverFamily f, uint64_t registry_id) {
  return (static_cast<uint64_t>(f) << 32) | registry_id;
}
constexpr SolverFamily solver_family(uint64_t solver_id) {
  return static_cast<SolverFamily>(solver_id >> 32);
}
constexpr uint64_t registry_id(uint64_t solver_id) {
  return solver_id & 0xffffffffu;
}

class OperatorAdapter {
 public:
  virtual ~OperatorAdapter() = default;

  // Whether the operator takes a tensor descriptor for `id` in direction `d`
  // (miopenSetProblemTensorDescriptor refuses the others with BadParm).
  virtual bool takes(miopenProblemDirection_t d, miopenTensorArgumentId_t id) const = 0;
  // The scalar arguments (host values) a run of this part reads, e.g. batch norm's epsilon.
  virtual std::vector<miopenTensorArgumentId_t> scalars(const OperatorProblem& part) const {
    return {};
  }
  // Whether a run may leave scalar `id` out (MHA's mask: MIOpen reads it only when given).
  virtual bool scalar_optional(miopenTensorArgumentId_t id) const { return false; }

  // Checks the whole problem (every tensor it needs is set, the shapes agree, the family
  // supports it) and returns its canonical key, the primitive's MIOpenDriver line where it has
  // one. Throws the status and one-line reason of the first thing wrong.
  virtual std::string key(Handle& handle, const Problem& p) const = 0;
  // Log MIOpen's driver command (when command logging is on) for a Find on the problem and for
  // a run of solver `solver_id`.
  virtual void log_command(Handle& handle, const Problem& p) const {}
  virtual void log_run_command(Handle& handle, const Problem& p, uint64_t solver_id) const {}
  // The most workspace any solver may need: what Find allocates (up to the limit) when the
  // options attach none.
  virtual size_t max_workspace(Handle& handle, const Problem& p) const { return 0; }
  // Every solution: each solver the family offers for the problem that fits
  // settings.workspace_limit (and bufs.workspace_size), timed on `bufs` (outputs are
  // overwritten), in any order.
  virtual std::vector<FoundSolver> find(Handle& handle, const Problem& p, const RunBuffers& bufs,
                                        const FindSettings& settings) const = 0;
  // Runs solver `solver_id` (as find() returned it) on `bufs`, whose workspace has been checked
  // against the solution's.
  virtual void run(Handle& handle, const Problem& p, uint64_t solver_id, const RunBuffers& bufs,
                   RunCache& cache) const = 0;
};

// The adapter of an operator kind, and the one of fused problems.
const OperatorAdapter& operator_adapter(OperatorKind kind);
const OperatorAdapter& fused_adapter();
inline const OperatorAdapter& adapter_for(const Problem& p) {
  return p.fused() ? fused_adapter() : operator_adapter(p.parts().front().kind());
}

}  // namespace anydnn::find2
