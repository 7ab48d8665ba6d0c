#include "backend/cpu/kernels/transpose.hpp"

#include <algorithm>

namespace anydnn::cpu {

void transpose(CpuIsa isa, const float* src, long lds, float* dst, long ldd, long rows, long cols) {
  TransposeKernel k;
#if defined(ANYDNN_HAVE_X86_KERNELS)
  if (isa == CpuIsa::Avx512) k = transpose_kernel_avx512();
  if (isa == CpuIsa::Avx2) k = transpose_kernel_avx2();
#endif
  const long b = k.full_block != nullptr ? k.block : 32;
  for (long i0 = 0; i0 < rows; i0 += b)
    for (long j0 = 0; j0 < cols; j0 += b) {
      if (k.full_block != nullptr && i0 + b <= rows && j0 + b <= cols) {
        k.full_block(src + i0 * lds + j0, lds, dst + j0 * ldd + i0, ldd);
        continue;
      }
      const long i1 = std::min(rows, i0 + b), j1 = std::min(cols, j0 + b);
      for (long j = j0; j < j1; ++j)
        for (long i = i0; i < i1; ++i)
          dst[j * ldd + i] = src[i * lds + j];
    }
}

}  // namespace anydnn::cpu
