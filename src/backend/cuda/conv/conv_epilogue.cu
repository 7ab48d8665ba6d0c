#include "backend/cuda/conv/conv_epilogue.hpp"

#include <cstdint>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"

namespace anydnn::cuda {

namespace {

template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// Vector i of V values of y (every vector inside one plane: plane % V == 0), its channel
// (i * V / plane) % channels. I: 32-bit indices when the tensor allows (the divisions are then
// cheap), else 64-bit.
template <class T, int V, class I>
__global__ void __launch_bounds__(256)
    epilogue_packed_kernel(EpilogueArgs e, T* y, I vectors, I plane_vectors, I channels) {
  using P = Pack<T, V>;
  const T* z = static_cast<const T*>(e.residual);
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    const I k = (i / plane_vectors) % channels;
    P v = reinterpret_cast<const P*>(y)[i];
    P r{};
    if (z) r = reinterpret_cast<const P*>(z)[i];
#pragma unroll
    for (int j = 0; j < V; ++j)
      v.v[j] = store<T>(apply_epilogue(e, load(v.v[j]), k, load(r.v[j])));
    reinterpret_cast<P*>(y)[i] = v;
  }
}

template <class T, int V>
void launch_packed(const EpilogueArgs& e, T* y, size_t vectors, size_t plane_vectors,
                   size_t channels, cudaStream_t stream) {
  const unsigned grid = grid_for(vectors);
  if (vectors < (size_t{1} << 31))
    epilogue_packed_kernel<T, V, uint32_t><<<grid, 256, 0, stream>>>(
        e, y, static_cast<uint32_t>(vectors), static_cast<uint32_t>(plane_vectors),
        static_cast<uint32_t>(channels));
  else
    epilogue_packed_kernel<T, V, uint64_t>
        <<<grid, 256, 0, stream>>>(e, y, vectors, plane_vectors, channels);
  ANYDNN_CUDA_LAUNCHED("convolution epilogue pass");
}

bool aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

}  // namespace

Applicability cuda_epilogue_support(const ConvProblem& p, const ConvEpilogueNeeds& needs) {
  ANYDNN_REJECT_IF(p.direction() != ConvDirection::Forward, "not a forward problem");
  const miopenDataType_t t = p.y().type();
  ANYDNN_REJECT_IF(t != miopenFloat && t != miopenHalf && t != miopenBFloat16,
                   "the epilogue needs a float, half or bfloat16 output");
  ANYDNN_REJECT_IF(static_cast<int>(needs.activation) < static_cast<int>(miopenActivationPASTHRU) ||
                       static_cast<int>(needs.activation) > static_cast<int>(miopenActivationELU),
                   "not one of MIOpen's activation modes");
  return Applicability::yes();
}

Applicability gemm_epilogue_support(const ConvProblem& p, const ConvEpilogueNeeds& needs) {
  if (Applicability a = cuda_epilogue_support(p, needs); !a) return a;
  ANYDNN_REJECT_IF(p.y().type() != miopenFloat,
                   "half / bfloat16: the GEMM rounds y before the epilogue pass could apply it");
  return Applicability::yes();
}

void apply_epilogue_packed(const EpilogueArgs& e, miopenDataType_t type, void* y, size_t images,
                           size_t channels, size_t plane, cudaStream_t stream) {
  const size_t total = images * channels * plane;
  if (total == 0) return;
  dispatch_float_type(type, [&](auto tag) {
    using T = decltype(tag);
    constexpr int kV = static_cast<int>(16 / sizeof(T));
    // 16-byte accesses when every plane holds whole vectors and both tensors are aligned.
    if (plane % kV == 0 && aligned16(y) && (e.residual == nullptr || aligned16(e.residual)))
      launch_packed<T, kV>(e, static_cast<T*>(y), total / kV, plane / kV, channels, stream);
    else
      launch_packed<T, 1>(e, static_cast<T*>(y), total, plane, channels, stream);
  });
}

}  // namespace anydnn::cuda
