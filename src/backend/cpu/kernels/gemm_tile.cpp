#include "backend/cpu/kernels/gemm_tile.hpp"

namespace anydnn::cpu {

const GemmTiles& gemm_tiles(CpuIsa isa) {
#if defined(ANYDNN_HAVE_X86_KERNELS)
  if (isa == CpuIsa::Avx512) return gemm_tiles_avx512();
  if (isa == CpuIsa::Avx2) return gemm_tiles_avx2();
#endif
  return gemm_tiles_generic();
}

}  // namespace anydnn::cpu
