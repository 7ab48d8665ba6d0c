#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/reduction/reduce_kernels.hpp"
#include "reduction/reduce_math.hpp"

namespace anydnn::cuda {

namespace {

using namespace anydnn::reduce;

constexpr unsigned kBlock = 256;
constexpr unsigned kMaxGrid = 65535u * 16u;

// Compute types as on the CPU: fp32 for the float types, double for double.
__device__ inline float ld(float v) {
  return v;
}
__device__ inline float ld(__half v) {
  return __half2float(v);
}
__device__ inline float ld(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ inline double ld(double v) {
  return v;
}
template <class T, class C>
__device__ inline T st(C v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(v);
  else
    return static_cast<T>(v);
}

template <miopenReduceTensorOp_t Op, bool Prop, bool Idx, class T>
struct K {
  using C = decltype(ld(T{}));

  // Two partials of an index op, in either order: NaN (PROPAGATE) beats a number, of two NaNs
  // the later index; otherwise the better value, of equal values the earlier index. Applied to
  // per-thread sequential partials this gives the sequential answer (reduce_math.hpp).
  __device__ static void merge(C& v, long& i, C ov, long oi) {
    if constexpr (op_has_indices(Op)) {
      if constexpr (Prop) {
        const bool n = v != v, on = ov != ov;
        if (n || on) {
          if (on && (!n || oi > i)) {
            v = ov;
            i = oi;
          }
          return;
        }
      }
      const bool better = Op == MIOPEN_REDUCE_TENSOR_MIN ? ov < v : ov > v;
      if (better || (ov == v && oi < i)) {
        v = ov;
        i = oi;
      }
    } else {
      v = combine<Op>(v, ov);
    }
  }

  __device__ static void offsets(const ReducePlan& pl, size_t o, size_t& a_off, size_t& c_off) {
    a_off = c_off = 0;
    for (int d = pl.out_ndim - 1; d >= 0; --d) {
      const size_t i = o % pl.out_lens[d];
      o /= pl.out_lens[d];
      a_off += i * pl.out_a[d];
      c_off += i * pl.out_c[d];
    }
  }

  __device__ static size_t red_offset(const ReducePlan& pl, size_t r) {
    size_t off = 0;
    for (int d = pl.red_ndim - 1; d >= 0; --d) {
      off += (r % pl.red_lens[d]) * pl.red_a[d];
      r /= pl.red_lens[d];
    }
    return off;
  }

  __device__ static void store(const ReducePlan& pl, const ReduceBuffers& b, size_t c_off, size_t o,
                               C v, long i) {
    T* c = static_cast<T*>(b.c);
    const C old = pl.beta != 0.0 ? ld(c[c_off]) : C(0);  // beta 0 never reads C
    c[c_off] = st<T>(blend<C>(post<Op>(v, pl.red_count), static_cast<C>(pl.alpha),
                              static_cast<C>(pl.beta), old));
    if constexpr (Idx) b.indices[c_off] = static_cast<int>(i);  // MIOpen: indices[dst_offset]
  }

  // Block-wide merge of every thread's (v, i): warp shuffles, then the warps' results through
  // shared memory. The tree is fixed, so sums are deterministic.
  __device__ static void block_merge(C& v, long& i) {
    __shared__ C sv[kBlock / 32];
    __shared__ long si[kBlock / 32];
    for (int w = 16; w > 0; w /= 2) {
      const C ov = __shfl_down_sync(0xffffffffu, v, w);
      const long oi = __shfl_down_sync(0xffffffffu, i, w);
      merge(v, i, ov, oi);
    }
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
      sv[warp] = v;
      si[warp] = i;
    }
    __syncthreads();
    if (warp == 0) {
      v = lane < kBlock / 32 ? sv[lane] : identity<Op, C>();
      i = lane < kBlock / 32 ? si[lane] : 0;
      for (int w = 16; w > 0; w /= 2) {
        const C ov = __shfl_down_sync(0xffffffffu, v, w);
        const long oi = __shfl_down_sync(0xffffffffu, i, w);
        merge(v, i, ov, oi);
      }
    }
    __syncthreads();  // sv / si are reused by the block's next output
  }

  template <bool Contiguous>
  __device__ static void per_block(const ReducePlan& pl, const ReduceBuffers& b) {
    const T* a = static_cast<const T*>(b.a);
    for (size_t o = blockIdx.x; o < pl.out_count; o += gridDim.x) {
      size_t a_off, c_off;
      offsets(pl, o, a_off, c_off);
      C v = identity<Op, C>();
      long i = 0;
      for (size_t r = threadIdx.x; r < pl.red_count; r += kBlock) {
        const C x = pre<Op>(ld(a[a_off + (Contiguous ? r : red_offset(pl, r))]));
        if constexpr (op_has_indices(Op)) {
          if (replaces<Op, Prop>(v, x)) {
            v = x;
            i = static_cast<long>(r);
          }
        } else {
          v = combine<Op>(v, x);
        }
      }
      block_merge(v, i);
      if (threadIdx.x == 0) store(pl, b, c_off, o, v, i);
    }
  }

  // Columns: a block takes TX consecutive outputs (unit stride in A, so a warp's loads of one
  // reduced position coalesce) and splits their reduced elements over kBlock / TX row slices;
  // each thread keeps a sequential partial, and the slices merge through shared memory in a fixed
  // order (deterministic). A thread per output, the first version, ran 1,024 threads over a
  // 4096 x 1024 column reduction and took 6x cuDNN's time.
  template <int TX>
  __device__ static void per_tile(const ReducePlan& pl, const ReduceBuffers& b) {
    constexpr int TY = kBlock / TX;
    __shared__ C sv[kBlock];
    __shared__ long si[kBlock];
    const T* a = static_cast<const T*>(b.a);
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    const bool one_dim = pl.red_ndim == 1;
    for (size_t tile = blockIdx.x; tile * TX < pl.out_count; tile += gridDim.x) {
      const size_t o = tile * TX + tx;
      const bool live = o < pl.out_count;
      size_t a_off = 0, c_off = 0;
      if (live) offsets(pl, o, a_off, c_off);
      C v = identity<Op, C>();
      long i = 0;
      if (live)
        for (size_t r = ty; r < pl.red_count; r += TY) {
          const C x = pre<Op>(ld(a[a_off + (one_dim ? r * pl.red_a[0] : red_offset(pl, r))]));
          if constexpr (op_has_indices(Op)) {
            if (replaces<Op, Prop>(v, x)) {
              v = x;
              i = static_cast<long>(r);
            }
          } else {
            v = combine<Op>(v, x);
          }
        }
      sv[threadIdx.x] = v;
      si[threadIdx.x] = i;
      __syncthreads();
      if (ty == 0 && live) {
        for (int y = 1; y < TY; ++y)
          merge(v, i, sv[y * TX + tx], si[y * TX + tx]);
        store(pl, b, c_off, o, v, i);
      }
      __syncthreads();  // sv / si are reused by the next tile
    }
  }
};

template <miopenReduceTensorOp_t Op, bool Prop, bool Idx, class T>
__global__ void __launch_bounds__(kBlock) rows_kernel(ReducePlan pl, ReduceBuffers b) {
  K<Op, Prop, Idx, T>::template per_block<true>(pl, b);
}
template <miopenReduceTensorOp_t Op, bool Prop, bool Idx, class T>
__global__ void __launch_bounds__(kBlock) strided_kernel(ReducePlan pl, ReduceBuffers b) {
  K<Op, Prop, Idx, T>::template per_block<false>(pl, b);
}
template <miopenReduceTensorOp_t Op, bool Prop, bool Idx, class T, int TX>
__global__ void __launch_bounds__(kBlock) columns_kernel(ReducePlan pl, ReduceBuffers b) {
  K<Op, Prop, Idx, T>::template per_tile<TX>(pl, b);
}

unsigned capped(size_t n) {
  return n < kMaxGrid ? static_cast<unsigned>(n) : kMaxGrid;
}

template <miopenReduceTensorOp_t Op, bool Prop, bool Idx, class T>
void launch(const ReducePlan& p, const ReduceBuffers& b, ReduceWalk w, cudaStream_t s) {
  switch (w) {
    case ReduceWalk::Rows:
      rows_kernel<Op, Prop, Idx, T><<<capped(p.out_count), kBlock, 0, s>>>(p, b);
      break;
    case ReduceWalk::Strided:
      strided_kernel<Op, Prop, Idx, T><<<capped(p.out_count), kBlock, 0, s>>>(p, b);
      break;
    case ReduceWalk::Columns:
      // 32 outputs a block where that gives a few blocks per SM (132 on an H100), else 8 (a
      // 32-byte sector of fp32 per warp row) and more row slices.
      if (p.out_count >= 32 * 512)
        columns_kernel<Op, Prop, Idx, T, 32>
            <<<capped(grid_for(p.out_count, 32)), kBlock, 0, s>>>(p, b);
      else
        columns_kernel<Op, Prop, Idx, T, 8>
            <<<capped(grid_for(p.out_count, 8)), kBlock, 0, s>>>(p, b);
      break;
  }
  ANYDNN_CUDA_LAUNCHED("reduction kernel");
}

template <miopenReduceTensorOp_t Op, class T>
void with_op(const ReducePlan& p, const ReduceBuffers& b, ReduceWalk w, cudaStream_t s) {
  if constexpr (op_has_indices(Op)) {
    if (p.propagate_nan) {
      if (p.indices) return launch<Op, true, true, T>(p, b, w, s);
      return launch<Op, true, false, T>(p, b, w, s);
    }
    if (p.indices) return launch<Op, false, true, T>(p, b, w, s);
    return launch<Op, false, false, T>(p, b, w, s);
  } else {
    return launch<Op, false, false, T>(p, b, w, s);
  }
}

template <class T>
void with_type(const ReducePlan& p, const ReduceBuffers& b, ReduceWalk w, cudaStream_t s) {
  reduce::dispatch_op(p.op, [&](auto op) { with_op<decltype(op)::value, T>(p, b, w, s); });
}

}  // namespace

void launch_reduce(const ReducePlan& p, const ReduceBuffers& b, ReduceWalk walk,
                   cudaStream_t stream) {
  if (p.out_count == 0 || p.red_count == 0) return;
  const bool known = reduce::dispatch_type<__half, __nv_bfloat16>(
      p.type, [&](auto t) { with_type<typename decltype(t)::type>(p, b, walk, stream); });
  ANYDNN_CHECK(known, miopenStatusInternalError, "reduction planned for an unsupported type");
}

}  // namespace anydnn::cuda
