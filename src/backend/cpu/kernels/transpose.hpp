// Out-of-place float matrix transpose, dst[j * ldd + i] = src[i * lds + j] for i < rows,
// j < cols, blocked so both sides are walked a cache line at a time and vectorized per
// instruction set (16 x 16 AVX-512 and 8 x 8 AVX2 register transposes, scalar elsewhere).
// Used where a GEMM produced the transpose of the layout a tensor needs (dW^T -> dW, W -> W^T).
#pragma once

#include "core/cpu_isa.hpp"

namespace anydnn::cpu {

void transpose(CpuIsa isa, const float* src, long lds, float* dst, long ldd, long rows, long cols);

// Per instruction set: full blocks of 16 x 16 (AVX-512), 8 x 8 (AVX2); nullptr where absent.
struct TransposeKernel {
  int block = 0;
  void (*full_block)(const float* src, long lds, float* dst, long ldd) = nullptr;
};
TransposeKernel transpose_kernel_avx512();
TransposeKernel transpose_kernel_avx2();

}  // namespace anydnn::cpu
