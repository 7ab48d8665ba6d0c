#include "backend/cpu/kernels/vector_ops.hpp"

namespace anydnn::cpu {

const VectorOps& vector_ops(CpuIsa isa) {
#if defined(ANYDNN_HAVE_X86_KERNELS)
  if (isa == CpuIsa::Avx512) return vector_ops_avx512();
  if (isa == CpuIsa::Avx2) return vector_ops_avx2();
#endif
  return vector_ops_generic();
}

}  // namespace anydnn::cpu
