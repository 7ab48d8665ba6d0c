#include "backend/cpu/tensor_ops/tensor_op_loops.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backend/cpu/cpu_types.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn::cpu {

namespace {

// Compute types: fp32 for the float types and int8 (whose only op is a copy), double for double
// and int32 (exact for every int32 value, so integer scalars give MIOpen's integer results).
inline float ld(float v) {
  return v;
}
inline float ld(Half v) {
  return to_float(v);
}
inline float ld(BFloat16 v) {
  return to_float(v);
}
inline float ld(int8_t v) {
  return v;
}
inline double ld(double v) {
  return v;
}
inline double ld(int32_t v) {
  return v;
}

template <class T, class C>
inline T st(C v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return from_float<T>(v);
  } else if constexpr (std::is_integral_v<T>) {
    // Saturate like the GPU's float-to-int conversion (NaN gives 0): a plain cast of an
    // out-of-range value is undefined behaviour in C++ (found by fuzz_compute).
    if (!(v == v)) return T{0};
    if (v <= static_cast<C>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (v >= static_cast<C>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
using ComputeOf = decltype(ld(T{}));

template <ElementwiseOp Op, class C>
inline C combine(C x, C y) {
  if constexpr (Op == ElementwiseOp::Add) return x + y;
  if constexpr (Op == ElementwiseOp::Mul) return x * y;
  if constexpr (Op == ElementwiseOp::Min) return x < y ? x : y;  // MIOpen's NaN behaviour
  if constexpr (Op == ElementwiseOp::Max) return x > y ? x : y;
  return x;
}

// One row: n elements. Unit: a and c unit-stride, b unit-stride unless BOne (one value).
template <ElementwiseOp Op, class T, bool Unit, bool BOne, bool ReadC>
void row(const T* a, const T* b, T* c, size_t n, size_t as, size_t bs, size_t cs, ComputeOf<T> al1,
         ComputeOf<T> al2, ComputeOf<T> be) {
  using C = ComputeOf<T>;
  const C bv = BOne && Op <= ElementwiseOp::Max ? al2 * ld(b[0]) : C{};
  for (size_t j = 0; j < n; ++j) {
    const size_t ia = Unit ? j : j * as, ic = Unit ? j : j * cs;
    C r;
    if constexpr (Op == ElementwiseOp::Scale) {
      r = al1 * ld(c[ic]);
    } else if constexpr (Op == ElementwiseOp::Copy) {
      r = al1 * ld(a[ia]);
      if constexpr (ReadC) r += be * ld(c[ic]);
    } else {
      const C y = BOne ? bv : al2 * ld(b[Unit ? j : j * bs]);
      r = combine<Op>(al1 * ld(a[ia]), y);
      if constexpr (ReadC) r += be * ld(c[ic]);
    }
    c[ic] = st<T>(r);
  }
}

// Walks rows [row0, row1): offsets of the outer dimensions by a stepped multi-index.
template <class F>
void for_rows(const TensorOpPlan& p, size_t row0, size_t row1, F&& f) {
  const int outer = p.ndim - 1;
  size_t idx[TensorOpPlan::kMaxDims] = {};
  size_t oa = 0, ob = 0, oc = 0;
  size_t rem = row0;
  for (int d = outer - 1; d >= 0; --d) {
    idx[d] = rem % p.lens[d];
    rem /= p.lens[d];
    oa += idx[d] * p.a[d];
    ob += idx[d] * p.b[d];
    oc += idx[d] * p.c[d];
  }
  for (size_t r = row0; r < row1; ++r) {
    f(oa, ob, oc);
    for (int d = outer - 1; d >= 0; --d) {  // step with carry
      oa += p.a[d];
      ob += p.b[d];
      oc += p.c[d];
      if (++idx[d] < p.lens[d]) break;
      oa -= p.a[d] * p.lens[d];
      ob -= p.b[d] * p.lens[d];
      oc -= p.c[d] * p.lens[d];
      idx[d] = 0;
    }
  }
}

template <ElementwiseOp Op, class T, bool Unit, bool BOne, bool ReadC>
void block(const TensorOpPlan& p, const TensorOpBuffers& bufs, size_t row0, size_t row1,
           size_t col0, size_t col1) {
  using C = ComputeOf<T>;
  const T* a = static_cast<const T*>(bufs.a);
  const T* b = static_cast<const T*>(bufs.b);
  T* c = static_cast<T*>(bufs.c);
  const int i = p.ndim - 1;
  const size_t as = p.a[i], bs = p.b[i], cs = p.c[i];
  const C al1 = static_cast<C>(p.alpha1), al2 = static_cast<C>(p.alpha2),
          be = static_cast<C>(p.beta);
  for_rows(p, row0, row1, [&](size_t oa, size_t ob, size_t oc) {
    row<Op, T, Unit, BOne, ReadC>(a ? a + oa + col0 * as : nullptr,
                                  b ? b + ob + col0 * bs : nullptr, c + oc + col0 * cs, col1 - col0,
                                  as, bs, cs, al1, al2, be);
  });
}

template <ElementwiseOp Op, class T>
void typed(const TensorOpPlan& p, const TensorOpBuffers& b, size_t r0, size_t r1, size_t c0,
           size_t c1, bool unit) {
  const bool b_one = p.reads_b() && p.b[p.ndim - 1] == 0;
  const bool read_c = p.reads_c();
  // Scale always reads C (its own ReadC-free path); Copy has no B.
  if (unit) {
    if (b_one)
      read_c ? block<Op, T, true, true, true>(p, b, r0, r1, c0, c1)
             : block<Op, T, true, true, false>(p, b, r0, r1, c0, c1);
    else
      read_c ? block<Op, T, true, false, true>(p, b, r0, r1, c0, c1)
             : block<Op, T, true, false, false>(p, b, r0, r1, c0, c1);
  } else {
    read_c ? block<Op, T, false, false, true>(p, b, r0, r1, c0, c1)
           : block<Op, T, false, false, false>(p, b, r0, r1, c0, c1);
  }
}

template <class U>
void fill(const TensorOpPlan& p, void* out, size_t r0, size_t r1, size_t c0, size_t c1) {
  U v;
  std::memcpy(&v, &p.fill_bits, sizeof v);
  U* c = static_cast<U*>(out);
  const size_t cs = p.c[p.ndim - 1];
  // v by value: a captured reference could alias the output and block vectorisation.
  for_rows(p, r0, r1, [v, c, cs, c0, c1](size_t, size_t, size_t oc) {
    U* o = c + oc;
    if (cs == 1)
      std::fill(o + c0, o + c1, v);
    else
      for (size_t j = c0; j < c1; ++j)
        o[j * cs] = v;
  });
}

template <ElementwiseOp Op>
void float_types(const TensorOpPlan& p, const TensorOpBuffers& b, size_t r0, size_t r1, size_t c0,
                 size_t c1, bool unit) {
  switch (p.type) {
    case miopenFloat:
      return typed<Op, float>(p, b, r0, r1, c0, c1, unit);
    case miopenHalf:
      return typed<Op, Half>(p, b, r0, r1, c0, c1, unit);
    case miopenBFloat16:
      return typed<Op, BFloat16>(p, b, r0, r1, c0, c1, unit);
    default:
      ANYDNN_THROW(miopenStatusInternalError, elementwise_op_name(Op)
                                                  << " planned for " << data_type_name(p.type));
  }
}

template <ElementwiseOp Op>
void all_types(const TensorOpPlan& p, const TensorOpBuffers& b, size_t r0, size_t r1, size_t c0,
               size_t c1, bool unit) {
  switch (p.type) {
    case miopenDouble:
      return typed<Op, double>(p, b, r0, r1, c0, c1, unit);
    case miopenInt32:
      return typed<Op, int32_t>(p, b, r0, r1, c0, c1, unit);
    case miopenInt8:
      return typed<Op, int8_t>(p, b, r0, r1, c0, c1, unit);
    default:
      return float_types<Op>(p, b, r0, r1, c0, c1, unit);
  }
}

}  // namespace

void tensor_op_block(const TensorOpPlan& p, const TensorOpBuffers& b, size_t row0, size_t row1,
                     size_t col0, size_t col1, bool contiguous) {
  if (row0 >= row1 || col0 >= col1) return;
  switch (p.op) {
    case ElementwiseOp::Add:
      return float_types<ElementwiseOp::Add>(p, b, row0, row1, col0, col1, contiguous);
    case ElementwiseOp::Mul:
      return float_types<ElementwiseOp::Mul>(p, b, row0, row1, col0, col1, contiguous);
    case ElementwiseOp::Min:
      return float_types<ElementwiseOp::Min>(p, b, row0, row1, col0, col1, contiguous);
    case ElementwiseOp::Max:
      return float_types<ElementwiseOp::Max>(p, b, row0, row1, col0, col1, contiguous);
    case ElementwiseOp::Copy:
      return all_types<ElementwiseOp::Copy>(p, b, row0, row1, col0, col1, contiguous);
    case ElementwiseOp::Scale:
      return all_types<ElementwiseOp::Scale>(p, b, row0, row1, col0, col1, contiguous);
    case ElementwiseOp::Fill:
      switch (data_type_size(p.type)) {
        case 1:
          return fill<uint8_t>(p, b.c, row0, row1, col0, col1);
        case 2:
          return fill<uint16_t>(p, b.c, row0, row1, col0, col1);
        case 4:
          return fill<uint32_t>(p, b.c, row0, row1, col0, col1);
        default:
          return fill<uint64_t>(p, b.c, row0, row1, col0, col1);
      }
  }
}

void tensor_op_parallel(const TensorOpPlan& p, const TensorOpBuffers& b, int threads,
                        bool contiguous) {
  const size_t rows = p.rows(), cols = p.inner();
  if (threads <= 1) return tensor_op_block(p, b, 0, rows, 0, cols, contiguous);
  const long nt = threads;
  if (rows >= static_cast<size_t>(threads)) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long t = 0; t < nt; ++t)
      tensor_op_block(p, b, rows * t / nt, rows * (t + 1) / nt, 0, cols, contiguous);
    return;
  }
  const size_t chunk = ((cols + nt - 1) / nt + 63) / 64 * 64;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long t = 0; t < nt; ++t) {
    const size_t lo = std::min(cols, t * chunk), hi = std::min(cols, lo + chunk);
    tensor_op_block(p, b, 0, rows, lo, hi, contiguous);
  }
}

}  // namespace anydnn::cpu
