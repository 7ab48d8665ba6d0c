#include <cuda_fp16.h>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_moves.hpp"

namespace anydnn::cuda {

namespace {

// rows: (source element, destination element) pairs; one thread per value.
template <class S, class D>
__global__ void move_rows_kernel(const S* src, D* dst, const long long* rows, long long count,
                                 long long width) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
       i < count * width; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = i / width, k = i % width;
    dst[rows[2 * r + 1] + k] = store<D>(load(src[rows[2 * r] + k]));
  }
}

template <class T>
__global__ void fill_kernel(T* dst, long long n, float value) {
  const T v = store<T>(value);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    dst[i] = v;
}

template <class S, class D>
void launch(const RowMoves& g, const long long* rows, cudaStream_t stream) {
  const long long count = static_cast<long long>(g.rows.size());
  const long long width = static_cast<long long>(g.width);
  move_rows_kernel<S, D><<<grid_for(static_cast<size_t>(count * width)), 256, 0, stream>>>(
      static_cast<const S*>(g.src), static_cast<D*>(g.dst), rows, count, width);
  ANYDNN_CUDA_LAUNCHED("move_rows");
}

}  // namespace

void move_rows(const std::vector<RowMoves>& groups, cudaStream_t stream) {
  std::vector<long long> table;
  for (const RowMoves& g : groups)
    if (g.width != 0)
      for (const auto& [from, to] : g.rows) {
        table.push_back(static_cast<long long>(from));
        table.push_back(static_cast<long long>(to));
      }
  if (table.empty()) return;
  long long* dev = nullptr;
  const size_t bytes = table.size() * sizeof(long long);
  check_cuda(cudaMallocAsync(reinterpret_cast<void**>(&dev), bytes, stream), "cudaMallocAsync");
  // Freed in stream order after the kernels, whatever happens below.
  struct Free {
    long long* p;
    cudaStream_t s;
    ~Free() { cudaFreeAsync(p, s); }
  } release{dev, stream};
  // From pageable memory the copy returns once `table` is staged.
  check_cuda(cudaMemcpyAsync(dev, table.data(), bytes, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync (row table)");
  const long long* at = dev;
  for (const RowMoves& g : groups) {
    if (g.width == 0 || g.rows.empty()) continue;
    if (!g.src_half && !g.dst_half)
      launch<float, float>(g, at, stream);
    else if (g.src_half && !g.dst_half)
      launch<__half, float>(g, at, stream);
    else if (!g.src_half && g.dst_half)
      launch<float, __half>(g, at, stream);
    else
      launch<__half, __half>(g, at, stream);
    at += 2 * g.rows.size();
  }
}

void fill(void* dst, size_t n, float value, bool half, cudaStream_t stream) {
  if (n == 0) return;
  if (half)
    fill_kernel<__half><<<grid_for(n), 256, 0, stream>>>(static_cast<__half*>(dst),
                                                         static_cast<long long>(n), value);
  else
    fill_kernel<float><<<grid_for(n), 256, 0, stream>>>(static_cast<float*>(dst),
                                                        static_cast<long long>(n), value);
  ANYDNN_CUDA_LAUNCHED("fill");
}

}  // namespace anydnn::cuda
