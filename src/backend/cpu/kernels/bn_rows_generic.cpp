// Batch-normalization loops (bn_rows.hpp) compiled for the generic instruction set.
#include <cstdint>

#include "backend/cpu/kernels/bn_rows.hpp"

namespace anydnn::cpu {

namespace {
#include "backend/cpu/kernels/bn_rows.inc"
}  // namespace

const BnRowOps& bn_row_ops_generic() {
  static const BnRowOps ops = make_ops();
  return ops;
}

}  // namespace anydnn::cpu
