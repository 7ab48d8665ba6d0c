// The CUTLASS 2.x tensor-core wgrad kernel shared by ImplicitGemmTensorCoreWrw (parallel split-K)
// and ImplicitGemmTensorCoreWrwSerial (serial split-K): fp32 output (ElementC = float) for every
// type, which tc::SplitKReduction<E> converts to E (implicit_gemm_tc_util.cuh).
#pragma once

#include "backend/cuda/conv/implicit_gemm_tc_util.cuh"
#include "cutlass/conv/kernel/default_conv2d_wgrad.h"

namespace anydnn::cuda::tc {

template <class E>
using WgradKernel = typename cutlass::conv::kernel::DefaultConv2dWgrad<
    E, cutlass::layout::TensorNHWC, E, cutlass::layout::TensorNHWC, float,
    cutlass::layout::TensorNHWC, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    typename TileConfig<E>::Threadblock, typename TileConfig<E>::Warp,
    typename TileConfig<E>::Instruction, Epilogue<float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, TileConfig<E>::kStages,
    cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;

template <class E>
using WgradOp = cutlass::conv::device::ImplicitGemmConvolution<WgradKernel<E>>;

}  // namespace anydnn::cuda::tc
