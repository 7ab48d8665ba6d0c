// MIOpen's reduction arithmetic (its host reference, test/cpu_reduce_util.hpp, and the CK
// kernels' reduction_operator.hpp / reduction_functions_binop.hpp), written once for every
// backend: the CPU loops call it from vectorisable code, the CUDA kernels from device code.
//   identity:   ADD AVG NORM1 NORM2 0, MUL 1, MIN the type's max, MAX lowest, AMAX 0
//   pre-op:     NORM1 and AMAX |x|, NORM2 x*x, the others x
//   combine:    + for ADD AVG NORM1 NORM2, * for MUL; MIN replaces when acc > x, MAX and AMAX
//               when acc < x: strict, so on ties the first index (row-major over the reduced
//               dimensions) is kept, and a NaN never replaces (NOT_PROPAGATE ignores NaNs).
//               PROPAGATE: a NaN x always replaces, index included (so the last NaN's index).
//   post-op:    AVG / count, NORM2 sqrt
//   blend:      acc * alpha (when alpha != 1) + beta * C (only when beta != 0: C is not read)
// Partial results of consecutive runs combine with the same rule (the later run's NaN or
// strictly better value wins), which is what lets a kernel split the reduced extent and still
// give the sequential answer, ties and NaN indices included.
#pragma once

#include <math.h>
#include <miopen/miopen.h>

#include <cfloat>
#include <type_traits>

#include "core/host_device.hpp"

namespace anydnn::reduce {

// MIN / MAX / AMAX: the ops that report indices.
ANYDNN_HD inline constexpr bool op_has_indices(miopenReduceTensorOp_t op) {
  return op == MIOPEN_REDUCE_TENSOR_MIN || op == MIOPEN_REDUCE_TENSOR_MAX ||
         op == MIOPEN_REDUCE_TENSOR_AMAX;
}

template <class C>
ANYDNN_HD inline C type_max() {
  if constexpr (sizeof(C) == 8)
    return DBL_MAX;
  else
    return FLT_MAX;
}

template <miopenReduceTensorOp_t Op, class C>
ANYDNN_HD inline C identity() {
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_MUL) return C(1);
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_MIN) return type_max<C>();
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_MAX) return -type_max<C>();
  return C(0);
}

template <miopenReduceTensorOp_t Op, class C>
ANYDNN_HD inline C pre(C x) {
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_NORM1 || Op == MIOPEN_REDUCE_TENSOR_AMAX)
    return x < C(0) ? -x : x;  // fabs without a libm call; NaN stays NaN
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_NORM2) return x * x;
  return x;
}

// The arithmetic ops (no index): acc op x. NaN rules are IEEE's, as MIOpen's.
template <miopenReduceTensorOp_t Op, class C>
ANYDNN_HD inline C combine(C acc, C x) {
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_MUL) return acc * x;
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_MIN) return acc > x ? x : acc;
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_MAX || Op == MIOPEN_REDUCE_TENSOR_AMAX)
    return acc < x ? x : acc;
  return acc + x;
}

// MIN / MAX / AMAX with the NaN option: does x (at a later index than acc's) replace acc?
template <miopenReduceTensorOp_t Op, bool Propagate, class C>
ANYDNN_HD inline bool replaces(C acc, C x) {
  if constexpr (Propagate) {
    if (x != x) return true;
  }
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_MIN)
    return acc > x;
  else
    return acc < x;
}

// One element into the running value of an op without indices.
template <miopenReduceTensorOp_t Op, bool Propagate, class C>
ANYDNN_HD inline C step(C acc, C x) {
  if constexpr (op_has_indices(Op)) {
    return replaces<Op, Propagate>(acc, x) ? x : acc;
  } else {
    return combine<Op>(acc, x);  // a NaN reaches the sum or product either way
  }
}

template <miopenReduceTensorOp_t Op, class C>
ANYDNN_HD inline C post(C acc, size_t count) {
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_AVG) return acc / static_cast<C>(count);
  if constexpr (Op == MIOPEN_REDUCE_TENSOR_NORM2) return sqrt(acc);
  return acc;
}

// The value stored: alpha and beta as MIOpen's reference applies them.
template <class C>
ANYDNN_HD inline C blend(C acc, C alpha, C beta, C old) {
  if (alpha != C(1)) acc *= alpha;
  if (beta != C(0)) acc += beta * old;
  return acc;
}

// Calls f(std::integral_constant<miopenReduceTensorOp_t, Op>{}) for the runtime op, so each
// backend's loop or kernel template is instantiated per op and the op is decided outside it.
// The op must be valid (the problem checked it).
template <class F>
decltype(auto) dispatch_op(miopenReduceTensorOp_t op, F&& f) {
  using O = miopenReduceTensorOp_t;
  switch (op) {
    case MIOPEN_REDUCE_TENSOR_ADD:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_ADD>{});
    case MIOPEN_REDUCE_TENSOR_MUL:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_MUL>{});
    case MIOPEN_REDUCE_TENSOR_MIN:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_MIN>{});
    case MIOPEN_REDUCE_TENSOR_MAX:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_MAX>{});
    case MIOPEN_REDUCE_TENSOR_AMAX:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_AMAX>{});
    case MIOPEN_REDUCE_TENSOR_AVG:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_AVG>{});
    case MIOPEN_REDUCE_TENSOR_NORM1:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_NORM1>{});
    case MIOPEN_REDUCE_TENSOR_NORM2:
    default:
      return f(std::integral_constant<O, MIOPEN_REDUCE_TENSOR_NORM2>{});
  }
}

// Calls f(std::type_identity<T>{}) with T the backend's element type for `type`: float, the
// backend's fp16 and bf16 types (Half, BFloat16), or double. False for any other type (the
// problem admits none: the caller reports an internal error).
template <class Half, class BFloat16, class F>
bool dispatch_type(miopenDataType_t type, F&& f) {
  switch (type) {
    case miopenFloat:
      f(std::type_identity<float>{});
      return true;
    case miopenHalf:
      f(std::type_identity<Half>{});
      return true;
    case miopenBFloat16:
      f(std::type_identity<BFloat16>{});
      return true;
    case miopenDouble:
      f(std::type_identity<double>{});
      return true;
    default:
      return false;
  }
}

}  // namespace anydnn::reduce
