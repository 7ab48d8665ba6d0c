// Backend-agnostic multi-head-attention front-end, what Find 2.0's MHA adapter calls: the
// applicable solvers of the handle's backend, their workspace sizes, the run of one on buffers
// given as (argument id, pointer) pairs with a workspace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "handle/handle.hpp"
#include "mha/mha_problem.hpp"
#include "mha/mha_solver.hpp"

namespace anydnn {

// miopenTensorMhaMask: miopenTensorArgumentIsScalar (1 << 31) | 1. Its buffer points to a
// miopenMhaMask_t in host memory.
inline constexpr uint32_t kMhaMaskArgumentId = 0x80000001u;

// One run-time argument: MIOpen's miopenTensorArgument_t id (as its 32-bit value) and buffer.
struct MhaArgument {
  uint32_t id;
  void* buffer;
};

// The solvers that can run `p`, in registry order: every applicable one that is not a
// fallback, or, when none is, the applicable fallbacks (each rejection is logged at Info2).
// Empty when nothing applies.
std::vector<const MhaSolverEntry*> applicable_mha_solvers(Handle& handle, const MhaProblem& p);

// The first of them; NotImplemented with every rejection reason when none applies.
const MhaSolverEntry& select_mha_solver(Handle& handle, const MhaProblem& p);

size_t mha_workspace_size(Handle& handle, const MhaProblem& p, const MhaSolverEntry& e);

// Buffers of one call from its arguments. BadParm (nothing is run) for an id that is not an
// argument of the problem's direction (or the bias without a bias descriptor), an id given
// twice, a null data buffer (Q, K, V, O, dO, M, ZInv backward, dQ, dK, dV, the bias), a null
// mask buffer or a mask that is not a miopenMhaMask_t; InvalidValue (as MIOpen's
// Solution::RunImpl) when an argument the direction requires is missing. Scales, descales, the
// dropout rate, seed and offset may be null (neutral values), as may the amax outputs and
// forward's M and ZInv (not written).
MhaBuffers mha_buffers(const MhaProblem& p, const std::vector<MhaArgument>& args);

// Runs `e` (which must apply to `p`) with a workspace of `workspace_size` bytes: BadParm when it
// is smaller than the solver needs, or null while it needs some. Records the kernel time
// (miopenGetKernelTime) when profiling.
void mha_run(Handle& handle, const MhaProblem& p, const MhaSolverEntry& e, const MhaBuffers& b,
             void* workspace, size_t workspace_size);

// Runs the solver with registry id `id` (a Find 2.0 solution's): BadParm when the backend has
// no such MHA solver or it does not apply to `p`; then as mha_run.
void mha_run_solver(Handle& handle, const MhaProblem& p, uint64_t id, const MhaBuffers& b,
                    void* workspace, size_t workspace_size);

}  // namespace anydnn
