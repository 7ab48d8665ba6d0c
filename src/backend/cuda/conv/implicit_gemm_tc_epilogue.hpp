// The fused epilogue of the forward tensor-core solver (ImplicitGemmTensorCoreFwd, the shared
// TcSolver in implicit_gemm_tc_util.cuh): the contract of activation/fused_epilogue.hpp applied in
// CUTLASS's output stage, or in the copy back of a staged fp32 output. Its own translation unit
// (implicit_gemm_tc_epilogue.cu): the fused CUTLASS kernels build in parallel with the plain
// ones, and the plain kernels stay exactly as they were.
//
// Where the epilogue runs, per output (justified in docs/cuda-backend.md, "Fused epilogues"):
//   y used in place (packed NHWC, channels a multiple of the access width): CUTLASS's epilogue
//     (the only place without an extra pass), residual z read as CUTLASS's source operand;
//   y staged (NCHW, or padded channels), fp32: the copy back to the caller's layout, which
//     reads and writes y anyway and knows each value's channel; the staged copy holds the exact
//     fp32 sums, so the result is bitwise the one CUTLASS's epilogue would give;
//   y staged, 16-bit: CUTLASS's epilogue on the padded copy (the copy back comes after the
//     rounding to 16 bits, which the contract forbids), without a residual: z is in the
//     caller's layout, not in the staged one (epilogue_support says no).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "backend/cuda/fused_epilogue.cuh"
#include "cutlass/conv/conv2d_problem_size.h"
#include "solver/solver_contract.hpp"

namespace anydnn::cuda::tc {

// Whether the fused forward kernel of `type` (half, bfloat16, or float as TF32) implements the
// padded problem `ps`.
Applicability fprop_epilogue_can_implement(miopenDataType_t type,
                                           const cutlass::conv::Conv2dProblemSize& ps);

// y (packed NHWC, ps.K channels) = epilogue(x conv w), x and w packed NHWC / KRSC as CUTLASS
// sees them. `channels` is the real output channel count: padded channels (k >= channels) keep
// the plain sum and are dropped by the copy back. e.residual, when set, is laid out as y.
// `index` is CudaBackend::channel_indices() (at least ps.K entries).
void run_fprop_epilogue(miopenDataType_t type, const cutlass::conv::Conv2dProblemSize& ps,
                        const void* x, const void* w, void* y, const EpilogueArgs& e, int channels,
                        const float* index, cudaStream_t stream);

// The fp32 copy back with the epilogue: staged [rows][hw][cp] (CUTLASS's padded NHWC) to the
// caller's y, NCHW [rows][c][hw] (nchw) or NHWC [rows][hw][c], with e applied on the way; the
// residual is read at the caller's offsets.
void stage_out_epilogue(bool nchw, size_t rows, size_t hw, size_t c, size_t cp, const float* staged,
                        float* user, const EpilogueArgs& e, cudaStream_t stream);

}  // namespace anydnn::cuda::tc
