// Dropout on CUDA: one thread per logical element (grid-stride), the mask from dropout_keep,
// bit-identical to the CPU backend's for the same (seed, counter).
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/dropout.hpp"
#include "backend/cuda/dropout_keep.cuh"

namespace anydnn::cuda {

namespace {

template <class T>
__global__ void dropout_kernel(Dims5 in_d, const T* in, Dims5 out_d, T* out, uint8_t* mask,
                               bool generate, bool linear, uint64_t key, float dropout,
                               float scale) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < in_d.count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    uint8_t m;
    if (generate) {
      m = dropout_keep(key, static_cast<uint64_t>(i), dropout) ? 1 : 0;
      mask[i] = m;
    } else {
      m = mask[i];
    }
    const long long si = linear ? i : offset_of(in_d, i);
    const long long di = linear ? i : offset_of(out_d, i);
    out[di] = store<T>(m ? load(in[si]) * scale : 0.0f);
  }
}

}  // namespace

void CudaDropoutKernels::apply(const DropoutApply& a) {
  const Dims5 di = dims5(*a.in_desc);
  const Dims5 dout = dims5(*a.out_desc);
  if (di.count == 0) return;
  const uint64_t key = dropout_key(a.seed, a.counter);
  dispatch_float_type(a.in_desc->type(), [&](auto tag) {
    using T = decltype(tag);
    dropout_kernel<T><<<grid_for(di.count), 256, 0, backend_.cuda_stream()>>>(
        di, static_cast<const T*>(a.in), dout, static_cast<T*>(a.out), a.mask, a.generate, a.linear,
        key, a.dropout, a.scale);
  });
  ANYDNN_CUDA_LAUNCHED("dropout_apply");
}

}  // namespace anydnn::cuda
