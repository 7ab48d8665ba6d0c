// The geometry of a (normalised) convolution problem as plain numbers a kernel takes by value,
// shared by the CUDA convolution kernels. Everything is 64-bit: offsets of large tensors
// overflow 32 bits long before their lengths do.
#pragma once

#include "backend/cuda/cuda_types.cuh"
#include "conv/conv_problem.hpp"

namespace anydnn::cuda {

struct ConvGeom {
  long long n, c, k;   // batch, input and output channels
  long long cpg, kpg;  // channels per group
  long long in[3];     // input d, h, w (2-D: d = 1)
  long long f[3];      // filter z, y, x
  long long out[3];    // output d, h, w
  long long pad[3], st[3], dil[3];
  long long xs[5], ws[5], ys[5];  // strides (n, c, d, h, w); 2-D: d-stride 0

  __host__ __device__ long long taps() const { return f[0] * f[1] * f[2]; }
  __host__ __device__ long long in_pixels() const { return in[0] * in[1] * in[2]; }
  __host__ __device__ long long out_pixels() const { return out[0] * out[1] * out[2]; }
};

inline ConvGeom conv_geom(const ConvProblem& p) {
  ConvGeom g{};
  g.n = static_cast<long long>(p.batch());
  g.c = static_cast<long long>(p.in_channels());
  g.k = static_cast<long long>(p.out_channels());
  g.cpg = g.c / static_cast<long long>(p.groups());
  g.kpg = g.k / static_cast<long long>(p.groups());
  for (int i = 0; i < 3; ++i) {
    g.in[i] = static_cast<long long>(p.in_size()[i]);
    g.f[i] = static_cast<long long>(p.filter_size()[i]);
    g.out[i] = static_cast<long long>(p.out_size()[i]);
    g.pad[i] = p.pads()[i];
    g.st[i] = p.strides()[i];
    g.dil[i] = p.dilations()[i];
  }
  const Ncdhw xs = strides_ncdhw(p.x()), ws = strides_ncdhw(p.w()), ys = strides_ncdhw(p.y());
  for (int i = 0; i < 5; ++i) {
    g.xs[i] = xs.s[i];
    g.ws[i] = ws.s[i];
    g.ys[i] = ys.s[i];
  }
  return g;
}

// Backward-data tap: the output index along one axis that input index i reads through filter
// tap t, i.e. (i + pad - t * dil) / stride when that divides exactly and lies in [0, out); else -1.
__device__ inline long long conv_tap(long long i, long long t, long long pad, long long st,
                                     long long dil, long long out) {
  const long long num = i + pad - t * dil;
  if (num < 0 || num % st != 0) return -1;
  const long long o = num / st;
  return o < out ? o : -1;
}

// Grid-stride loop index helpers: first index and step of this thread.
__device__ inline long long thread_index() {
  return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
}
__device__ inline long long thread_count() {
  return static_cast<long long>(gridDim.x) * blockDim.x;
}

}  // namespace anydnn::cuda
