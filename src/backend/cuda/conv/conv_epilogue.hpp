// What the CUDA convolution solvers share to honour the epilogue contract
// (activation/fused_epilogue.hpp): the checks every one of them makes, and the fused epilogue pass
// the cuBLAS solvers run after their GEMMs. The per-value arithmetic is fused_epilogue.cuh's.
//
// Where each forward solver applies the epilogue (docs/cuda-backend.md, "Fused epilogues"):
//   ConvDirectFwdCuda          in its store, from registers (conv_direct_fwd.cu)
//   ImplicitGemmTensorCoreFwd  in CUTLASS's epilogue (implicit_gemm_tc_epilogue.cu), or, for a
//                              staged fp32 output, in the copy back to the caller's layout
//   GemmFwd1x1_0_1, GemmFwdRest one pass over y after the GEMMs (apply_epilogue_packed): cuBLAS
//                              cannot add a per-channel vector of an NCHW output (cuBLASLt's
//                              bias epilogue broadcasts along the other dimension), so the
//                              chain makes one pass over y instead of one per operator
#pragma once

#include <cuda_runtime.h>

#include "backend/cuda/fused_epilogue.cuh"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"

namespace anydnn::cuda {

// The checks every CUDA solver's epilogue_support() starts with: a forward problem writing
// float, half or bfloat16, an activation mode MIOpen has. A solver adds its own limits.
Applicability cuda_epilogue_support(const ConvProblem& p, const ConvEpilogueNeeds& needs);

// The cuBLAS solvers' answer: the checks above, and fp32 only. With half / bfloat16 data the
// GEMM has rounded y to 16 bits before the pass could apply the epilogue, which the contract
// forbids (a fp32 copy of y for the pass would cost more bytes than fusing saves); the
// tensor-core solver, first in the registry, applies it before narrowing instead.
Applicability gemm_epilogue_support(const ConvProblem& p, const ConvEpilogueNeeds& needs);

// Applies `e` in place to y, a packed channel-major output of `images` x `channels` planes of
// `plane` values each (NCHW, NCDHW; the residual laid out the same), of type `type`. For the
// solvers whose kernel cannot apply it itself: one read and one write of y (plus z), where the
// unfused chain makes one per operator.
void apply_epilogue_packed(const EpilogueArgs& e, miopenDataType_t type, void* y, size_t images,
                           size_t channels, size_t plane, cudaStream_t stream);

}  // namespace anydnn::cuda
