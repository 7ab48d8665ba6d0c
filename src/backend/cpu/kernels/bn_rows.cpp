#include "backend/cpu/kernels/bn_rows.hpp"

namespace anydnn::cpu {

const BnRowOps& bn_row_ops(CpuIsa isa) {
#if defined(ANYDNN_HAVE_X86_KERNELS)
  if (isa == CpuIsa::Avx512) return bn_row_ops_avx512();
  if (isa == CpuIsa::Avx2) return bn_row_ops_avx2();
#endif
  return bn_row_ops_generic();
}

}  // namespace anydnn::cpu
