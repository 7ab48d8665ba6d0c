// The CUDA softmax kernels both solvers launch, templated on the addressing (packed NCHW or
// any strides through softmax::GroupWalk), the algorithm and the storage type:
//   - group_per_thread: one thread per group, looping over its elements (two or three passes).
//     For CHANNEL mode with many pixels: neighbouring threads read neighbouring pixels, so every
//     pass over the channels is coalesced.
//   - group_per_block: one block per group (grid-stride over groups), a warp-shuffle then
//     shared-memory reduction for the max and the sum (backward: the dot product). For INSTANCE
//     mode and for CHANNEL mode with few pixels per image (e.g. a classifier's 1x1 outputs with
//     large C).
//   - group_per_warp: one warp per group, the group in registers: packed contiguous rows of up
//     to 1024 elements, many of them (attention rows).
// The arithmetic is softmax_math.hpp's, shared with the CPU solvers.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "softmax/softmax_math.hpp"
#include "softmax/softmax_solver.hpp"

namespace anydnn::cuda::softmax_kernels {

constexpr unsigned kBlock = 256;

// Packed NCHW: group g = (n, pixel s), element v at n*inner*vec + v*inner + s.
struct PackedAddr {
  long long inner, vec;
  __device__ long long operator()(int /*tensor*/, long long g, long long v) const {
    const long long n = g / inner;
    return (n * vec + v) * inner + (g - n * inner);
  }
};

// Any strides: tensor 0 is the input (x or y), 1 the output (y or dx), 2 dy.
struct StridedAddr {
  softmax::GroupWalk walk;
  SoftmaxStrides s[3];
  __device__ long long operator()(int t, long long g, long long v) const {
    return walk.offset(s[t], g, v);
  }
};

struct Args {
  long long groups, vec;
  float alpha, beta;
};

template <miopenSoftmaxAlgorithm_t A, bool Fwd, class T, class Addr>
__global__ void __launch_bounds__(kBlock)
    group_per_thread(const T* in, const T* dy, T* out, Args a, Addr addr) {
  const long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (g >= a.groups) return;
  const bool prior = a.beta != 0.0f;
  if constexpr (Fwd) {
    float m = -INFINITY, s = 0.0f;
    if (A != MIOPEN_SOFTMAX_FAST)
      for (long long v = 0; v < a.vec; ++v)
        m = fmaxf(m, load(in[addr(0, g, v)]));
    for (long long v = 0; v < a.vec; ++v)
      s += softmax::forward_term<A>(load(in[addr(0, g, v)]), m);
    const softmax::FwdStats st = softmax::forward_stats<A>(m, s);
    for (long long v = 0; v < a.vec; ++v) {
      T& o = out[addr(1, g, v)];
      const float r = softmax::forward_value<A>(load(in[addr(0, g, v)]), st);
      o = store<T>(softmax::blend(r, a.alpha, a.beta, prior ? load(o) : 0.0f, prior));
    }
  } else {
    float dot = 0.0f;
    for (long long v = 0; v < a.vec; ++v)
      dot += softmax::backward_term<A>(load(in[addr(0, g, v)]), load(dy[addr(2, g, v)]));
    for (long long v = 0; v < a.vec; ++v) {
      T& o = out[addr(1, g, v)];
      const float r =
          softmax::backward_value<A>(load(in[addr(0, g, v)]), load(dy[addr(2, g, v)]), dot);
      o = store<T>(softmax::blend(r, a.alpha, a.beta, prior ? load(o) : 0.0f, prior));
    }
  }
}

// Block-wide reduction of v (max when Max, else sum); every thread gets the result.
template <bool Max>
__device__ float block_reduce(float v, float* shared) {
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = Max ? fmaxf(v, w) : v + w;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // shared may still be read by the previous reduction
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? shared[lane] : (Max ? -INFINITY : 0.0f);
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = Max ? fmaxf(v, w) : v + w;
  }
  return v;
}

template <miopenSoftmaxAlgorithm_t A, bool Fwd, class T, class Addr>
__global__ void __launch_bounds__(kBlock)
    group_per_block(const T* in, const T* dy, T* out, Args a, Addr addr) {
  __shared__ float shared[kBlock / 32];
  const bool prior = a.beta != 0.0f;
  for (long long g = blockIdx.x; g < a.groups; g += gridDim.x) {
    if constexpr (Fwd) {
      float m = -INFINITY;
      if (A != MIOPEN_SOFTMAX_FAST) {
        for (long long v = threadIdx.x; v < a.vec; v += blockDim.x)
          m = fmaxf(m, load(in[addr(0, g, v)]));
        m = block_reduce<true>(m, shared);
      }
      float s = 0.0f;
      for (long long v = threadIdx.x; v < a.vec; v += blockDim.x)
        s += softmax::forward_term<A>(load(in[addr(0, g, v)]), m);
      s = block_reduce<false>(s, shared);
      const softmax::FwdStats st = softmax::forward_stats<A>(m, s);
      for (long long v = threadIdx.x; v < a.vec; v += blockDim.x) {
        T& o = out[addr(1, g, v)];
        const float r = softmax::forward_value<A>(load(in[addr(0, g, v)]), st);
        o = store<T>(softmax::blend(r, a.alpha, a.beta, prior ? load(o) : 0.0f, prior));
      }
    } else {
      float dot = 0.0f;
      for (long long v = threadIdx.x; v < a.vec; v += blockDim.x)
        dot += softmax::backward_term<A>(load(in[addr(0, g, v)]), load(dy[addr(2, g, v)]));
      dot = block_reduce<false>(dot, shared);
      for (long long v = threadIdx.x; v < a.vec; v += blockDim.x) {
        T& o = out[addr(1, g, v)];
        const float r =
            softmax::backward_value<A>(load(in[addr(0, g, v)]), load(dy[addr(2, g, v)]), dot);
        o = store<T>(softmax::blend(r, a.alpha, a.beta, prior ? load(o) : 0.0f, prior));
      }
    }
    __syncthreads();  // in-place calls: the next group must not start before this one is written
  }
}

// Warp-wide reduction by butterfly (every lane gets the same result, in the same order).
template <bool Max>
__device__ inline float warp_reduce(float v) {
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = Max ? fmaxf(v, w) : v + w;
  }
  return v;
}

// One warp per group of a packed tensor whose groups are contiguous rows (inner == 1), the row
// held in registers (PerLane elements a lane, rows up to 32 * PerLane): one read of the input
// instead of two or three, and shuffles instead of block barriers. For many short rows
// (transformer attention: 65,536 rows of 128), where a block per row left half its threads idle
// and paid three barriers a row.
template <int PerLane, miopenSoftmaxAlgorithm_t A, bool Fwd, class T>
__global__ void __launch_bounds__(kBlock) group_per_warp(const T* in, const T* dy, T* out, Args a) {
  const int lane = threadIdx.x & 31;
  constexpr int kWarps = kBlock / 32;
  const bool prior = a.beta != 0.0f;
  for (long long g = blockIdx.x * static_cast<long long>(kWarps) + (threadIdx.x >> 5); g < a.groups;
       g += static_cast<long long>(gridDim.x) * kWarps) {
    const long long base = g * a.vec;
    float xv[PerLane], dv[PerLane];
#pragma unroll
    for (int k = 0; k < PerLane; ++k) {
      const long long v = lane + 32LL * k;
      xv[k] = v < a.vec ? load(in[base + v]) : 0.0f;
      if constexpr (!Fwd) dv[k] = v < a.vec ? load(dy[base + v]) : 0.0f;
    }
    if constexpr (Fwd) {
      float m = -INFINITY;
      if (A != MIOPEN_SOFTMAX_FAST) {
#pragma unroll
        for (int k = 0; k < PerLane; ++k)
          if (lane + 32LL * k < a.vec) m = fmaxf(m, xv[k]);
        m = warp_reduce<true>(m);
      }
      float s = 0.0f;
#pragma unroll
      for (int k = 0; k < PerLane; ++k)
        if (lane + 32LL * k < a.vec) s += softmax::forward_term<A>(xv[k], m);
      s = warp_reduce<false>(s);
      const softmax::FwdStats st = softmax::forward_stats<A>(m, s);
#pragma unroll
      for (int k = 0; k < PerLane; ++k) {
        const long long v = lane + 32LL * k;
        if (v >= a.vec) continue;
        T& o = out[base + v];
        const float r = softmax::forward_value<A>(xv[k], st);
        o = store<T>(softmax::blend(r, a.alpha, a.beta, prior ? load(o) : 0.0f, prior));
      }
    } else {
      float dot = 0.0f;
#pragma unroll
      for (int k = 0; k < PerLane; ++k)
        if (lane + 32LL * k < a.vec) dot += softmax::backward_term<A>(xv[k], dv[k]);
      dot = warp_reduce<false>(dot);
#pragma unroll
      for (int k = 0; k < PerLane; ++k) {
        const long long v = lane + 32LL * k;
        if (v >= a.vec) continue;
        T& o = out[base + v];
        const float r = softmax::backward_value<A>(xv[k], dv[k], dot);
        o = store<T>(softmax::blend(r, a.alpha, a.beta, prior ? load(o) : 0.0f, prior));
      }
    }
  }
}

// A thread per group pays when a warp's 32 groups are neighbouring pixels (CHANNEL mode, 32 or
// more pixels per image) and there are enough groups to fill the GPU; otherwise a block per
// group.
inline bool thread_per_group(const SoftmaxProblem& p, const CudaBackend& be) {
  const long long enough = static_cast<long long>(be.properties().multiProcessorCount) * kBlock;
  return p.mode() == MIOPEN_SOFTMAX_MODE_CHANNEL && p.inner() >= 32 && p.groups() >= enough;
}

// A warp per group: rows contiguous in memory (packed, inner == 1), short enough for registers,
// and enough of them to give every SM several warps.
inline bool warp_per_group(const SoftmaxProblem& p, const CudaBackend& be) {
  return p.inner() == 1 && p.vector() <= 1024 &&
         p.groups() >= static_cast<long long>(be.properties().multiProcessorCount) * 8;
}

inline void launch_per_warp(CudaBackend& be, const SoftmaxProblem& p, const SoftmaxBuffers& b,
                            const Args& a) {
  const long long cap = static_cast<long long>(be.properties().multiProcessorCount) * 16;
  const long long want = (a.groups + kBlock / 32 - 1) / (kBlock / 32);
  const unsigned grid = static_cast<unsigned>(want < cap ? want : cap);
  cudaStream_t s = be.cuda_stream();
  const auto go = [&](auto per_lane) {
    constexpr int L = decltype(per_lane)::value;
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      softmax::dispatch_algorithm(p.algorithm(), [&](auto algo) {
        constexpr miopenSoftmaxAlgorithm_t A = decltype(algo)::value;
        if (p.forward())
          group_per_warp<L, A, true, T><<<grid, kBlock, 0, s>>>(static_cast<const T*>(b.x), nullptr,
                                                                static_cast<T*>(b.y), a);
        else
          group_per_warp<L, A, false, T><<<grid, kBlock, 0, s>>>(
              static_cast<const T*>(b.y), static_cast<const T*>(b.dy), static_cast<T*>(b.dx), a);
      });
    });
  };
  if (a.vec <= 128)
    go(std::integral_constant<int, 4>{});
  else if (a.vec <= 256)
    go(std::integral_constant<int, 8>{});
  else if (a.vec <= 512)
    go(std::integral_constant<int, 16>{});
  else
    go(std::integral_constant<int, 32>{});
  ANYDNN_CUDA_LAUNCHED("softmax");
}

template <class Addr>
void launch(CudaBackend& be, const SoftmaxProblem& p, const SoftmaxBuffers& b, const Addr& addr) {
  const Args a{p.groups(), p.vector(), p.alpha(), p.beta()};
  const bool per_thread = thread_per_group(p, be);
  if constexpr (std::is_same_v<Addr, PackedAddr>) {
    if (!per_thread && warp_per_group(p, be)) return launch_per_warp(be, p, b, a);
  }
  const long long cap = static_cast<long long>(be.properties().multiProcessorCount) * 32;
  const unsigned grid = static_cast<unsigned>(per_thread ? (a.groups + kBlock - 1) / kBlock
                                                         : (a.groups < cap ? a.groups : cap));
  cudaStream_t s = be.cuda_stream();
  dispatch_float_type(p.data_type(), [&](auto tag) {
    using T = decltype(tag);
    softmax::dispatch_algorithm(p.algorithm(), [&](auto algo) {
      constexpr miopenSoftmaxAlgorithm_t A = decltype(algo)::value;
      const T* in = static_cast<const T*>(p.forward() ? b.x : b.y);
      const T* dy = static_cast<const T*>(b.dy);
      T* out = static_cast<T*>(p.forward() ? b.y : b.dx);
      if (p.forward()) {
        if (per_thread)
          group_per_thread<A, true, T><<<grid, kBlock, 0, s>>>(in, dy, out, a, addr);
        else
          group_per_block<A, true, T><<<grid, kBlock, 0, s>>>(in, dy, out, a, addr);
      } else {
        if (per_thread)
          group_per_thread<A, false, T><<<grid, kBlock, 0, s>>>(in, dy, out, a, addr);
        else
          group_per_block<A, false, T><<<grid, kBlock, 0, s>>>(in, dy, out, a, addr);
      }
    });
  });
  ANYDNN_CUDA_LAUNCHED("softmax");
}

}  // namespace anydnn::cuda::softmax_kernels
