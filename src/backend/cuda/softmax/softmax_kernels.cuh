// The CUDA softmax kernels both solvers launch, templated on the addressing (packed NCHW or
// any strides through softmax::GroupWalk), the algorithm and the storage type:
//   - group_per_thread: one thread per group, looping over its elements (two or three passes).
//     For CHANNEL mode with many pixels: neighbouring threads read neighbouring pixels, so every
//     pass over the channels is coalesced.
//   - group_per_block: one block per group (grid-stride over groups), a warp-shuffle then
//     shared-memory reduction for the max and the sum (backward: the dot product). For INSTANCE
//     mode and for CHANNEL mode with few pixels per image (e.g. a classifier's 1x1 outputs with
//     large C).
// The arithmetic is softmax_math.hpp's, shared with the CPU solvers.
#pragma once

#include <cuda_runtime.h>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "softmax/softmax_math.hpp"
#include "solver/softmax_solver.hpp"

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

// A thread per group pays when a warp's 32 groups are neighbouring pixels (CHANNEL mode, 32 or
// more pixels per image) and there are enough groups to fill the GPU; otherwise a block per
// group.
inline bool thread_per_group(const SoftmaxProblem& p, const CudaBackend& be) {
  const long long enough = static_cast<long long>(be.properties().multiProcessorCount) * kBlock;
  return p.mode() == MIOPEN_SOFTMAX_MODE_CHANNEL && p.inner() >= 32 && p.groups() >= enough;
}

template <class Addr>
void launch(CudaBackend& be, const SoftmaxProblem& p, const SoftmaxBuffers& b, const Addr& addr) {
  const Args a{p.groups(), p.vector(), p.alpha(), p.beta()};
  const bool per_thread = thread_per_group(p, be);
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
