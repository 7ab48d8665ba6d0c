// What the CPU MHA solvers share: reading one (n, h) slice of a 4-D tensor of any type and
// strides (whole rows into fp32, or a direct pointer when it already is fp32 with contiguous
// rows: the GEMM operands), writing an output slice with its amax and scale, the fp32 GEMM
// (OpenBLAS) and the carving of a workspace into 64-byte aligned pieces.
#pragma once

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "backend/cpu/cpu_types.hpp"
#include "mha/mha_problem.hpp"
#include "mha/mha_solver.hpp"

namespace anydnn::cpu::mha_cpu {

inline size_t round16(size_t floats) {
  return (floats + 15) / 16 * 16;
}

// Hands out consecutive 64-byte aligned float arrays from a workspace.
class Carver {
 public:
  explicit Carver(void* base)
      : next_(reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(base) + 63) & ~uintptr_t{63})) {
  }
  float* take(size_t floats) {
    float* p = next_;
    next_ += round16(floats);
    return p;
  }

 private:
  float* next_;
};

// Offset of element (n, h, r, c).
inline long long offset(const MhaStrides& s, long long n, long long h, long long r, long long c) {
  return n * s.n + h * s.h + r * s.r + c * s.c;
}

// Element (n, h, r, c) of tensor `t` as float.
inline float load(const MhaProblem& p, const MhaBuffers& b, MhaTensor t, long long n, long long h,
                  long long r, long long c) {
  const long long o = offset(p.strides(t), n, h, r, c);
  switch (p.desc(t).type()) {
    case miopenHalf:
      return to_float(b.as<const Half>(t)[o]);
    case miopenBFloat16:
      return to_float(b.as<const BFloat16>(t)[o]);
    default:
      return b.as<const float>(t)[o];
  }
}

// Columns [0, cols) of row r of slice (n, h) of tensor t as floats in dst.
inline void load_row(const MhaProblem& p, const MhaBuffers& b, MhaTensor t, long long n,
                     long long h, long long r, long long cols, float* dst) {
  const MhaStrides s = p.strides(t);
  const long long o = offset(s, n, h, r, 0);
  dispatch_float_type(p.desc(t).type(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = b.as<const T>(t) + o;
    for (long long c = 0; c < cols; ++c)
      dst[c] = to_float(src[c * s.c]);
  });
}

// A row-major fp32 GEMM operand: rows `ld` floats apart.
struct Operand {
  const float* data;
  long long ld;
};

// Whether operand() reads t in place (else it needs rows x cols floats of scratch).
inline bool direct(const MhaProblem& p, MhaTensor t) {
  const TensorDescriptor& d = p.desc(t);
  const size_t cols = d.lens()[3];
  return d.type() == miopenFloat && p.rows_contiguous(t) &&
         (d.lens()[2] == 1 || d.strides()[2] >= cols);
}

// Rows [r0, r0 + rows) of slice (n, h) of t: in place when t is fp32 with contiguous rows and a
// usable row stride, else converted into `scratch` (rows x cols, packed).
inline Operand operand(const MhaProblem& p, const MhaBuffers& b, MhaTensor t, long long n,
                       long long h, long long r0, long long rows, float* scratch) {
  const TensorDescriptor& d = p.desc(t);
  const long long cols = static_cast<long long>(d.lens()[3]);
  const long long ld = d.lens()[2] == 1 ? cols : static_cast<long long>(d.strides()[2]);
  if (direct(p, t)) return {b.as<const float>(t) + offset(p.strides(t), n, h, r0, 0), ld};
  for (long long r = 0; r < rows; ++r)
    load_row(p, b, t, n, h, r0 + r, cols, scratch + r * cols);
  return {scratch, cols};
}

// Writes rows [r0, r0 + rows) of slice (n, h) of output t from src (rows x cols, row stride ld):
// value * factor in t's type; returns max |value| (the amax, before the factor).
inline float store_rows(const MhaProblem& p, const MhaBuffers& b, MhaTensor t, long long n,
                        long long h, long long r0, long long rows, const float* src, long long ld,
                        float factor) {
  const TensorDescriptor& d = p.desc(t);
  const long long cols = static_cast<long long>(d.lens()[3]);
  const MhaStrides s = p.strides(t);
  float amax = 0.0f;
  dispatch_float_type(d.type(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = b.as<T>(t);
    for (long long r = 0; r < rows; ++r) {
      T* row = dst + offset(s, n, h, r0 + r, 0);
      const float* in = src + r * ld;
      for (long long c = 0; c < cols; ++c) {
        amax = std::max(amax, std::fabs(in[c]));
        row[c * s.c] = from_float<T>(in[c] * factor);
      }
    }
  });
  return amax;
}

// Row-major C[m x n] = alpha * op(A) op(B) (beta 0). a_trans: A stored [k x m]; b_trans: B
// stored [n x k]. Single-threaded inside an OpenMP region (OpenBLAS's OpenMP build), threaded
// outside one.
inline void gemm(bool a_trans, bool b_trans, long long m, long long n, long long k, float alpha,
                 Operand a, Operand b, float* c, long long ldc) {
  if (m == 0 || n == 0) return;
  cblas_sgemm(CblasRowMajor, a_trans ? CblasTrans : CblasNoTrans,
              b_trans ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a.data, static_cast<int>(a.ld), b.data,
              static_cast<int>(b.ld), 0.0f, c, static_cast<int>(ldc));
}

// Writes a 1-element float output when the caller passed one.
inline void write_scalar(const MhaBuffers& b, MhaTensor t, float v) {
  if (float* out = b.as<float>(t)) *out = v;
}

}  // namespace anydnn::cpu::mha_cpu
