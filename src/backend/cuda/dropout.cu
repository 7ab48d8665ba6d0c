// Dropout on CUDA: one thread per logical element (grid-stride), the mask from dropout_keep,
// bit-identical to the CPU backend's for the same (seed, counter).
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

void dropout_apply(const TensorDescriptor& in_desc, const void* in,
                   const TensorDescriptor& out_desc, void* out, uint8_t* mask, bool generate,
                   uint64_t seed, uint64_t counter, float dropout, cudaStream_t stream) {
  const Dims5 di = dims5(in_desc);
  const Dims5 dout = dims5(out_desc);
  if (di.count == 0) return;
  // Both tensors packed in logical order (as the CPU's fast path): element i at offset i.
  long long expect = 1;
  bool logical = true;
  for (int k = 4; k >= 0; --k) {
    logical = logical && (di.lens[k] == 1 || di.strides[k] == expect);
    expect *= di.lens[k];
  }
  const bool linear = logical && in_desc.strides() == out_desc.strides();
  const float scale = 1.0f / (1.0f - dropout);
  const uint64_t key = dropout_key(seed, counter);
  dispatch_float_type(in_desc.type(), [&](auto tag) {
    using T = decltype(tag);
    dropout_kernel<T><<<grid_for(di.count), 256, 0, stream>>>(di, static_cast<const T*>(in), dout,
                                                              static_cast<T*>(out), mask, generate,
                                                              linear, key, dropout, scale);
  });
  ANYDNN_CUDA_LAUNCHED("dropout_apply");
}

}  // namespace anydnn::cuda
