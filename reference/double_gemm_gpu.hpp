// DoubleGemm on a CUDA device: cuBLAS's Dgemm (IEEE double on every architecture; Hopper runs it
// on its FP64 tensor cores). Operands are host memory: each product copies its operands in and
// its result out, except ranges given to hold() (the weights), which are copied once. MIOpenDriver
// -V 1 uses it for the RNN reference of CUDA runs (MIOPEN_DRIVER_USE_GPU_REFERENCE,
// docs/driver.md).
#pragma once

#include <memory>

#include "double_gemm.hpp"

namespace anydnn::ref::gpu {

// Throws std::runtime_error when there is no usable device or cuBLAS fails to start; gemm()
// throws on a CUDA or cuBLAS error (out of memory, say).
std::unique_ptr<DoubleGemm> make_double_gemm();

}  // namespace anydnn::ref::gpu
