// The contract every multi-head-attention solver implements (docs/adding-a-solver.md): a name,
// applicability with a reason, a workspace size and a run on concrete buffers. The front-end
// (mha/mha_ops.hpp) lists the applicable solvers for Find 2.0 and runs the one a solution names;
// the registry (mha/mha_registry.hpp) holds one list for every backend.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "mha/mha_math.hpp"
#include "mha/mha_problem.hpp"
#include "solver/registry.hpp"
#include "solver/solver_contract.hpp"

namespace anydnn {

// The buffers of one call (the backend's memory) by tensor, and the run-time mask. Built and
// checked by mha_buffers (mha/mha_ops.hpp): the data tensors are never null; a null scale,
// descale, dropout rate, seed or offset reads as its neutral value (mha::load_scalars); a null
// M, ZInv (forward) or amax output is not written.
struct MhaBuffers {
  std::array<void*, kMhaTensorCount> ptr{};
  MhaMask mask = MhaMask::None;

  void* get(MhaTensor t) const { return ptr[mha_slot(t)]; }
  template <class T>
  T* as(MhaTensor t) const {
    return static_cast<T*>(get(t));
  }
  bool causal() const { return mask == MhaMask::Causal; }
  // The scalar tensors' pointers (dereferenced on the host by CPU solvers, in kernels on CUDA).
  mha::ScalarPtrs scalars() const {
    mha::ScalarPtrs s;
    s.descale_q = as<const float>(MhaTensor::DescaleQ);
    s.descale_k = as<const float>(MhaTensor::DescaleK);
    s.descale_v = as<const float>(MhaTensor::DescaleV);
    s.descale_s = as<const float>(MhaTensor::DescaleS);
    s.scale_s = as<const float>(MhaTensor::ScaleS);
    s.scale_o = as<const float>(MhaTensor::ScaleO);
    s.descale_o = as<const float>(MhaTensor::DescaleO);
    s.descale_do = as<const float>(MhaTensor::DescaleDO);
    s.descale_ds = as<const float>(MhaTensor::DescaleDS);
    s.scale_ds = as<const float>(MhaTensor::ScaleDS);
    s.scale_dq = as<const float>(MhaTensor::ScaleDQ);
    s.scale_dk = as<const float>(MhaTensor::ScaleDK);
    s.scale_dv = as<const float>(MhaTensor::ScaleDV);
    s.dropout = as<const float>(MhaTensor::DropoutProbability);
    s.seed = as<const int64_t>(MhaTensor::DropoutSeed);
    s.offset = as<const int64_t>(MhaTensor::DropoutOffset);
    return s;
  }
};

class MhaSolver {
 public:
  static constexpr std::string_view kRegistryLabel = "MHA solver";  // registry.hpp
  virtual ~MhaSolver() = default;
  virtual std::string_view name() const = 0;
  // A fallback is listed only when no other solver applies (it exists for coverage).
  virtual bool fallback_only() const { return false; }
  virtual Applicability applicable(const ExecutionContext& ctx, const MhaProblem& p) const = 0;
  // Bytes of scratch memory run() needs (the backend's memory), for a problem it applies to.
  virtual size_t workspace_size(const ExecutionContext& ctx, const MhaProblem& p) const = 0;
  // Runs one call; `workspace` holds at least workspace_size() bytes (the front-end checks).
  // Writes only the direction's outputs and the workspace.
  virtual void run(const ExecutionContext& ctx, const MhaProblem& p, const MhaBuffers& b,
                   void* workspace) const = 0;
};

using MhaSolverEntry = SolverEntry<MhaSolver>;
using MhaSolverRegistry = SolverRegistry<MhaSolver>;

}  // namespace anydnn
