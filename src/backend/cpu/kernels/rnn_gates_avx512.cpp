// RNN gate loops (rnn_gates.hpp) compiled for the avx512 instruction set.
#include <bit>
#include <cstdint>

#include "backend/cpu/kernels/rnn_gates.hpp"

namespace anydnn::cpu {

namespace {
#include "backend/cpu/kernels/rnn_gates.inc"
}  // namespace

const RnnGateOps& rnn_gate_ops_avx512() {
  static const RnnGateOps ops = make_ops();
  return ops;
}

}  // namespace anydnn::cpu
