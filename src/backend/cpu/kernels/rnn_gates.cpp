#include "backend/cpu/kernels/rnn_gates.hpp"

namespace anydnn::cpu {

const RnnGateOps& rnn_gate_ops(CpuIsa isa) {
#if defined(ANYDNN_HAVE_X86_KERNELS)
  if (isa == CpuIsa::Avx512) return rnn_gate_ops_avx512();
  if (isa == CpuIsa::Avx2) return rnn_gate_ops_avx2();
#endif
  return rnn_gate_ops_generic();
}

}  // namespace anydnn::cpu
