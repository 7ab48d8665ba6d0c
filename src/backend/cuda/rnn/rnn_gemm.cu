#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/rnn/rnn_gemm.hpp"

namespace anydnn::cuda {

namespace {

// Keeps the handle in CUBLAS_DEFAULT_MATH for one GEMM: another solver may have left TF32 on.
class DefaultMath {
 public:
  explicit DefaultMath(cublasHandle_t h) : h_(h) {
    check_cublas(cublasGetMathMode(h_, &old_), "cublasGetMathMode");
    if (old_ != CUBLAS_DEFAULT_MATH)
      check_cublas(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
  ~DefaultMath() {
    if (old_ != CUBLAS_DEFAULT_MATH) cublasSetMathMode(h_, old_);
  }

 private:
  cublasHandle_t h_;
  cublasMath_t old_ = CUBLAS_DEFAULT_MATH;
};

// 32 columns x 8 row groups per block; each thread sums its rows in order, then the 8 partial
// sums are added in a fixed order.
__global__ void column_sums_kernel(const float* a, long long rows, long long cols, long long lda,
                                   float* out) {
  __shared__ float part[8][33];
  const long long j = blockIdx.x * 32LL + threadIdx.x;
  float s = 0.0f;
  if (j < cols)
    for (long long r = threadIdx.y; r < rows; r += 8)
      s += a[r * lda + j];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
    float t = part[0][threadIdx.x];
    for (int y = 1; y < 8; ++y)
      t += part[y][threadIdx.x];
    out[j] = t;
  }
}

}  // namespace

void rnn_gemm(cublasHandle_t h, bool ta, bool tb, size_t m, size_t n, size_t k, const float* a,
              size_t lda, const float* b, size_t ldb, float beta, float* c, size_t ldc,
              cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0.0f)
      check_cuda(cudaMemset2DAsync(c, ldc * sizeof(float), 0, n * sizeof(float), m, stream),
                 "cudaMemset2DAsync");
    return;
  }
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: B's view first.
  DefaultMath math(h);
  const float alpha = 1.0f;
  check_cublas(
      cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                  static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha, b,
                  static_cast<int>(ldb), a, static_cast<int>(lda), &beta, c, static_cast<int>(ldc)),
      "cublasSgemm (RNN)");
}

void column_sums(const float* a, size_t rows, size_t cols, size_t lda, float* out,
                 cudaStream_t stream) {
  if (cols == 0) return;
  const dim3 block(32, 8);
  const unsigned grid = static_cast<unsigned>((cols + 31) / 32);
  column_sums_kernel<<<grid, block, 0, stream>>>(a, static_cast<long long>(rows),
                                                 static_cast<long long>(cols),
                                                 static_cast<long long>(lda), out);
  ANYDNN_CUDA_LAUNCHED("rnn column_sums");
}

DeviceIntTable::DeviceIntTable(const std::vector<int>& host, cudaStream_t stream)
    : stream_(stream) {
  const size_t bytes = (host.empty() ? 1 : host.size()) * sizeof(int);
  check_cuda(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), bytes, stream_), "cudaMallocAsync");
  // From pageable memory the call returns once the data is staged: `host` may go right after.
  if (host.empty()) return;
  const cudaError_t err = cudaMemcpyAsync(ptr_, host.data(), host.size() * sizeof(int),
                                          cudaMemcpyHostToDevice, stream_);
  if (err != cudaSuccess) cudaFreeAsync(ptr_, stream_);  // the destructor will not run
  check_cuda(err, "cudaMemcpyAsync");
}

DeviceIntTable::~DeviceIntTable() {
  if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);
}

}  // namespace anydnn::cuda
