// The per-group kernels shared by the CUDA batch-normalization solvers (bn_util.cuh): one thread
// per group, partials merged in index order (deterministic).
#include "backend/cuda/bn/bn_util.cuh"

namespace anydnn::cuda::bn {

namespace {

__global__ void finalize_stats_kernel(GroupArgs a, const Stat* part, int nb, GroupState* st) {
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; g < a.groups;
       g += static_cast<long long>(gridDim.x) * blockDim.x) {
    const Stat* p = part + g * nb;
    Stat r = p[0];
    for (int b = 1; b < nb; ++b)
      r = combine(r, p[b]);
    GroupState s;
    set_stats(a, g, r.mean, r.m2, s);
    if (a.dir != Dir::Backward) forward_coefs(a, g, s);
    activation_coefs(a, g, s);
    st[g] = s;
  }
}

__global__ void given_stats_kernel(GroupArgs a, GroupState* st) {
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; g < a.groups;
       g += static_cast<long long>(gridDim.x) * blockDim.x) {
    GroupState s;
    load_stats(a, g, s);
    if (a.dir != Dir::Backward) forward_coefs(a, g, s);
    activation_coefs(a, g, s);
    st[g] = s;
  }
}

__global__ void finalize_backward_kernel(GroupArgs a, const Sums* part, int nb, GroupState* st) {
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; g < a.groups;
       g += static_cast<long long>(gridDim.x) * blockDim.x) {
    const Sums* p = part + g * nb;
    Sums r = p[0];
    for (int b = 1; b < nb; ++b)
      r = combine(r, p[b]);
    GroupState s = st[g];
    backward_coefs(a, g, r.s1, r.s2, s);
    st[g] = s;
  }
}

}  // namespace

void finalize_stats(const GroupArgs& a, const Stat* part, int nb, GroupState* st,
                    cudaStream_t stream) {
  finalize_stats_kernel<<<grid_for(static_cast<size_t>(a.groups), 128), 128, 0, stream>>>(a, part,
                                                                                          nb, st);
  ANYDNN_CUDA_LAUNCHED("bn finalize_stats");
}

void given_stats(const GroupArgs& a, GroupState* st, cudaStream_t stream) {
  given_stats_kernel<<<grid_for(static_cast<size_t>(a.groups), 128), 128, 0, stream>>>(a, st);
  ANYDNN_CUDA_LAUNCHED("bn given_stats");
}

void finalize_backward(const GroupArgs& a, const Sums* part, int nb, GroupState* st,
                       cudaStream_t stream) {
  finalize_backward_kernel<<<grid_for(static_cast<size_t>(a.groups), 128), 128, 0, stream>>>(
      a, part, nb, st);
  ANYDNN_CUDA_LAUNCHED("bn finalize_backward");
}

}  // namespace anydnn::cuda::bn
