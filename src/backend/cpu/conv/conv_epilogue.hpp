// The CPU side of the convolution epilogue contract (activation/fused_epilogue.hpp): what a CPU
// solver calls on a block of fp32 output it has just written (still in L1 / L2), to apply the
// per-channel scale / shift, the residual and the activation in place, instead of the separate
// bias, BN and activation passes over memory. The loop is activ::forward of
// activation/activation_math.hpp, instantiated per mode and compiled for the CPU's instruction
// set once per call (a function pointer chosen when the epilogue is set up, so a block costs one
// indirect call).
#pragma once

#include "backend/cpu/kernels/row_epilogue.hpp"
#include "conv/conv_solver.hpp"
#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

// Which epilogues a CPU solver takes: forward problems of a float type (no int8), with a
// residual only on fp32 data unless the solver reads it in its own type (`any_residual_type`:
// the naive solver).
Applicability cpu_epilogue_support(const ConvProblem& p, const ConvEpilogueNeeds& needs,
                                   bool any_residual_type = false);

class CpuEpilogue {
 public:
  // An empty epilogue: active() is false and nothing may be applied.
  CpuEpilogue() = default;
  // `ep` may be null (then empty). `y_base`: the fp32 output the solver writes (the caller's y,
  // or its fp32 staging copy for 16-bit data); residual elements are read at the same offset
  // from ep->residual (fp32) as the block from y_base.
  CpuEpilogue(const ConvEpilogue* ep, CpuIsa isa, const float* y_base);

  bool active() const { return fn_ != nullptr; }
  bool has_residual() const { return z_base_ != nullptr; }
  // The epilogue as a kernel's hook (kernels/row_epilogue.hpp), whose channel numbers start at
  // channel0 (a group's first output channel); empty when inactive. `holder` keeps the context and
  // must outlive the hook's use.
  struct GemmHook {
    const CpuEpilogue* ep;
    long channel0;
  };
  RowEpilogue gemm_hook(GemmHook& holder, long channel0) const;

  // Rows r in [0, rows) of `cols` values at y + r * ld, row r of output channel k + r * k_step
  // (k_step 1: rows are channels, as in the GEMM engines' blocks; 0: rows of one plane).
  void rows(float* y, long ld, long rows, long cols, long k, long k_step) const;
  // The same with the residual given explicitly (row r at z + r * ld; null only when the
  // epilogue has none), for values not at their place in y yet (a buffer, one element of a
  // 16-bit output).
  void rows_with(float* v, const float* z, long ld, long rows, long cols, long k,
                 long k_step) const;

  // The arguments of one block, as the instantiated loop reads them.
  struct Block {
    float* v;
    const float* z;
    long ld, rows, cols, k, k_step;
    const float* scale;
    const float* shift;
    float residual_alpha;
    activ::ActivParams params;
  };
  using Fn = void (*)(const Block&);

 private:
  Fn fn_ = nullptr;
  const ConvEpilogue* ep_ = nullptr;
  const float* y_base_ = nullptr;
  const float* z_base_ = nullptr;
};

}  // namespace anydnn::cpu
