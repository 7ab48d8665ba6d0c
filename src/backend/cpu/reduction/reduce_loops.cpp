#include "backend/cpu/reduction/reduce_loops.hpp"

#include <omp.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "backend/cpu/cpu_types.hpp"
#include "core/errors.hpp"
#include "reduction/reduce_math.hpp"

namespace anydnn::cpu {

namespace {

using namespace anydnn::reduce;

// Compute types: fp32 for the float types, double for double.
inline float ld(float v) {
  return v;
}
inline float ld(Half v) {
  return to_float(v);
}
inline float ld(BFloat16 v) {
  return to_float(v);
}
inline double ld(double v) {
  return v;
}
template <class T, class C>
inline T st(C v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return from_float<T>(v);
  else
    return static_cast<T>(v);
}

// A run's partial result: its value and (index ops) the flattened index of that value.
template <class C>
struct Partial {
  C v;
  long idx;
};

// Below this many elements a call runs on one thread: a fork/join costs more than the loop.
constexpr size_t kParallelMin = size_t{1} << 15;
// Rows: the fixed chunk of a run (its partials are combined in order, whatever the threads).
constexpr size_t kChunk = 8192;
// Columns: outputs accumulated together.
constexpr size_t kColumnBlock = 256;

template <miopenReduceTensorOp_t Op, bool Prop, bool Idx, class T>
struct Kernels {
  using C = decltype(ld(T{}));

  // Later partial `x` (elements after acc's) into acc: the sequential rule on the pair.
  static void merge(Partial<C>& acc, const Partial<C>& x) {
    if constexpr (op_has_indices(Op)) {
      if (replaces<Op, Prop>(acc.v, x.v)) acc = x;
    } else {
      acc.v = combine<Op>(acc.v, x.v);
    }
  }

  // Elements [begin, end) of a unit-stride run starting at p (indices relative to p).
  static Partial<C> run(const T* p, size_t begin, size_t end) {
    if constexpr (op_has_indices(Op) && (Idx || Prop)) {
      // Sequential: the index (or the NaN-propagation order) depends on every comparison.
      Partial<C> r{identity<Op, C>(), 0};
      for (size_t j = begin; j < end; ++j) {
        const C x = pre<Op>(ld(p[j]));
        if (replaces<Op, Prop>(r.v, x)) r = {x, static_cast<long>(j)};
      }
      return r;
    } else {
      // Eight interleaved lanes (one vector register of fp32) added in a fixed tree.
      constexpr int kLanes = 8;
      C lane[kLanes];
      for (int l = 0; l < kLanes; ++l)
        lane[l] = identity<Op, C>();
      size_t j = begin;
      for (; j + kLanes <= end; j += kLanes)
        for (int l = 0; l < kLanes; ++l)
          lane[l] = combine<Op>(lane[l], pre<Op>(ld(p[j + l])));
      for (int l = 0; j < end; ++j, ++l)
        lane[l] = combine<Op>(lane[l], pre<Op>(ld(p[j])));
      for (int w = kLanes / 2; w > 0; w /= 2)
        for (int l = 0; l < w; ++l)
          lane[l] = combine<Op>(lane[l], lane[l + w]);
      return {lane[0], 0};
    }
  }

  static void store(const ReducePlan& pl, const ReduceBuffers& b, size_t c_off, size_t out,
                    Partial<C> r) {
    T* c = static_cast<T*>(b.c);
    const C old = pl.reads_c() ? ld(c[c_off]) : C(0);
    c[c_off] = st<T>(blend<C>(post<Op>(r.v, pl.red_count), static_cast<C>(pl.alpha),
                              static_cast<C>(pl.beta), old));
    if constexpr (Idx) b.indices[c_off] = static_cast<int>(r.idx);  // MIOpen: indices[dst_offset]
  }

  // The A and C offsets of output o.
  static void offsets(const ReducePlan& pl, size_t o, size_t& a_off, size_t& c_off) {
    a_off = c_off = 0;
    for (int d = pl.out_ndim - 1; d >= 0; --d) {
      const size_t i = o % pl.out_lens[d];
      o /= pl.out_lens[d];
      a_off += i * pl.out_a[d];
      c_off += i * pl.out_c[d];
    }
  }

  // C's offsets give the index buffer's layout: MIOpen writes indices[dst_offset].
  static void rows(const ReducePlan& pl, const ReduceBuffers& b, int threads) {
    const T* a = static_cast<const T*>(b.a);
    const size_t n = pl.red_count, chunks = (n + kChunk - 1) / kChunk;
    const auto one = [&](size_t o, Partial<C>* parts, bool parallel_chunks) {
      size_t a_off, c_off;
      offsets(pl, o, a_off, c_off);
      const T* p = a + a_off;
#pragma omp parallel for num_threads(threads) schedule(static) if (parallel_chunks)
      for (size_t k = 0; k < chunks; ++k)
        parts[k] = run(p, k * kChunk, std::min(n, (k + 1) * kChunk));
      Partial<C> r = parts[0];
      for (size_t k = 1; k < chunks; ++k)
        merge(r, parts[k]);
      store(pl, b, c_off, o, r);
    };
    const bool big = pl.out_count * n >= kParallelMin && threads > 1;
    if (big && pl.out_count < static_cast<size_t>(threads)) {
      std::vector<Partial<C>> parts(chunks);
      for (size_t o = 0; o < pl.out_count; ++o)
        one(o, parts.data(), true);
      return;
    }
#pragma omp parallel num_threads(threads) if (big)
    {
      std::vector<Partial<C>> parts(chunks);
#pragma omp for schedule(static)
      for (size_t o = 0; o < pl.out_count; ++o)
        one(o, parts.data(), false);
    }
  }

  static void columns(const ReducePlan& pl, const ReduceBuffers& b, int threads) {
    const T* a = static_cast<const T*>(b.a);
    const size_t inner = pl.out_lens[pl.out_ndim - 1];
    const size_t outer = pl.out_count / inner, blocks = (inner + kColumnBlock - 1) / kColumnBlock;
    const bool big = pl.out_count * pl.red_count >= kParallelMin && threads > 1;
#pragma omp parallel for num_threads(threads) schedule(static) if (big)
    for (size_t w = 0; w < outer * blocks; ++w) {
      const size_t j0 = (w % blocks) * kColumnBlock, m = std::min(kColumnBlock, inner - j0);
      size_t a_off, c_off;
      offsets(pl, (w / blocks) * inner + j0, a_off, c_off);
      C acc[kColumnBlock];
      long idx[kColumnBlock];
      for (size_t j = 0; j < m; ++j) {
        acc[j] = identity<Op, C>();
        idx[j] = 0;
      }
      size_t ri[ReducePlan::kMaxDims] = {};
      size_t r_off = 0;
      for (size_t r = 0; r < pl.red_count; ++r) {
        const T* p = a + a_off + r_off;
        if constexpr (op_has_indices(Op)) {
          for (size_t j = 0; j < m; ++j) {
            const C x = pre<Op>(ld(p[j]));
            if (replaces<Op, Prop>(acc[j], x)) {
              acc[j] = x;
              idx[j] = static_cast<long>(r);
            }
          }
        } else {
          for (size_t j = 0; j < m; ++j)
            acc[j] = combine<Op>(acc[j], pre<Op>(ld(p[j])));
        }
        // Next reduced multi-index (row-major odometer).
        for (int d = pl.red_ndim - 1; d >= 0; --d) {
          r_off += pl.red_a[d];
          if (++ri[d] < pl.red_lens[d]) break;
          r_off -= ri[d] * pl.red_a[d];
          ri[d] = 0;
        }
      }
      const size_t o0 = (w / blocks) * inner + j0;
      for (size_t j = 0; j < m; ++j)
        store(pl, b, c_off + j, o0 + j, {acc[j], idx[j]});
    }
  }

  static void strided(const ReducePlan& pl, const ReduceBuffers& b, int threads) {
    const T* a = static_cast<const T*>(b.a);
    const bool big = pl.out_count * pl.red_count >= kParallelMin && threads > 1;
#pragma omp parallel for num_threads(threads) schedule(static) if (big)
    for (size_t o = 0; o < pl.out_count; ++o) {
      size_t a_off, c_off;
      offsets(pl, o, a_off, c_off);
      Partial<C> acc{identity<Op, C>(), 0};
      size_t ri[ReducePlan::kMaxDims] = {};
      size_t r_off = 0;
      for (size_t r = 0; r < pl.red_count; ++r) {
        const C x = pre<Op>(ld(a[a_off + r_off]));
        if constexpr (op_has_indices(Op)) {
          if (replaces<Op, Prop>(acc.v, x)) acc = {x, static_cast<long>(r)};
        } else {
          acc.v = combine<Op>(acc.v, x);
        }
        for (int d = pl.red_ndim - 1; d >= 0; --d) {
          r_off += pl.red_a[d];
          if (++ri[d] < pl.red_lens[d]) break;
          r_off -= ri[d] * pl.red_a[d];
          ri[d] = 0;
        }
      }
      store(pl, b, c_off, o, acc);
    }
  }

  static void go(const ReducePlan& pl, const ReduceBuffers& b, ReduceWalk walk, int threads) {
    switch (walk) {
      case ReduceWalk::Rows:
        return rows(pl, b, threads);
      case ReduceWalk::Columns:
        return columns(pl, b, threads);
      case ReduceWalk::Strided:
        return strided(pl, b, threads);
    }
  }
};

template <miopenReduceTensorOp_t Op, class T>
void with_op(const ReducePlan& p, const ReduceBuffers& b, ReduceWalk w, int threads) {
  if constexpr (op_has_indices(Op)) {
    if (p.propagate_nan) {
      if (p.indices) return Kernels<Op, true, true, T>::go(p, b, w, threads);
      return Kernels<Op, true, false, T>::go(p, b, w, threads);
    }
    if (p.indices) return Kernels<Op, false, true, T>::go(p, b, w, threads);
    return Kernels<Op, false, false, T>::go(p, b, w, threads);
  } else {
    return Kernels<Op, false, false, T>::go(p, b, w, threads);
  }
}

template <class T>
void with_type(const ReducePlan& p, const ReduceBuffers& b, ReduceWalk w, int threads) {
  reduce::dispatch_op(p.op, [&](auto op) { with_op<decltype(op)::value, T>(p, b, w, threads); });
}

}  // namespace

void reduce_cpu(const ReducePlan& p, const ReduceBuffers& b, ReduceWalk walk, int threads) {
  if (p.out_count == 0 || p.red_count == 0) return;
  if (threads < 1) threads = 1;
  const bool known = reduce::dispatch_type<Half, BFloat16>(
      p.type, [&](auto t) { with_type<typename decltype(t)::type>(p, b, walk, threads); });
  ANYDNN_CHECK(known, miopenStatusInternalError, "reduction planned for an unsupported type");
}

}  // namespace anydnn::cpu
