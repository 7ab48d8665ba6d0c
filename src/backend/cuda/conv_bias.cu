// CUDA convolution bias, for any strides (NCHW, NHWC, ...), 2- to 5-D, float types; mirrors
// backend/cpu/conv_bias.cpp. Forward: one thread per y element. Backward: one block per channel
// summing in double over a fixed thread split and a fixed shared-memory tree, so results are
// deterministic and keep their precision over N * spatial terms, like the CPU's double sum.
// Also the CUDA backend's ConvKernels (bias, the result blend of tensor_ops.cu, and the fold of
// a fused chain's bias / BN into its epilogue's scale and shift).
#include <cmath>
#include <memory>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/tensor_ops.hpp"
#include "conv/conv_kernels.hpp"

namespace anydnn::cuda {

namespace {

constexpr unsigned kReduceBlock = 256;

// The tensor as (n, k, plane) with the plane's d, h, w lengths and strides (the CPU's Plane).
struct BiasGeom {
  long long n, k, n_stride, k_stride;
  long long len[3] = {1, 1, 1};
  long long stride[3] = {0, 0, 0};
  long long plane = 1;
  explicit BiasGeom(const TensorDescriptor& t) {
    const auto& l = t.lens();
    const auto& s = t.strides();
    ANYDNN_CHECK(l.size() >= 2 && l.size() <= 5, miopenStatusNotImplemented,
                 "CUDA convolution bias handles 2- to 5-D tensors, got " << l.size());
    n = static_cast<long long>(l[0]);
    k = static_cast<long long>(l[1]);
    n_stride = static_cast<long long>(s[0]);
    k_stride = static_cast<long long>(s[1]);
    const size_t first = 5 - l.size();  // 4-D tensors have no depth
    for (size_t i = 2; i < l.size(); ++i) {
      len[first + i - 2] = static_cast<long long>(l[i]);
      stride[first + i - 2] = static_cast<long long>(s[i]);
    }
    plane = len[0] * len[1] * len[2];
  }
  // Offset of position p (row-major over d, h, w) of a plane.
  __device__ long long plane_offset(long long p) const {
    const long long w = p % len[2];
    const long long h = (p / len[2]) % len[1];
    const long long d = p / (len[2] * len[1]);
    return d * stride[0] + h * stride[1] + w * stride[2];
  }
};

template <class T>
__global__ void bias_fwd_kernel(BiasGeom g, const T* b, long long b_stride, T* y, float alpha,
                                float beta) {
  const long long total = g.n * g.k * g.plane;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long p = i % g.plane;
    const long long k = (i / g.plane) % g.k;
    const long long n = i / (g.plane * g.k);
    T& out = y[n * g.n_stride + k * g.k_stride + g.plane_offset(p)];
    const float bias = load(b[k * b_stride]);
    const float v = load(out);
    out = store<T>(alpha * (v + bias) + beta * v);
  }
}

// Block k: db[k] = alpha * sum over n and the plane of dy[n, k, ...] + beta * db[k].
template <class T>
__global__ void __launch_bounds__(kReduceBlock)
    bias_bwd_kernel(BiasGeom g, const T* dy, T* db, long long db_stride, float alpha, float beta) {
  __shared__ double partial[kReduceBlock];
  const long long k = blockIdx.x;
  const long long terms = g.n * g.plane;
  double sum = 0.0;
  for (long long j = threadIdx.x; j < terms; j += kReduceBlock) {
    const long long n = j / g.plane;
    sum += load(dy[n * g.n_stride + k * g.k_stride + g.plane_offset(j % g.plane)]);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = kReduceBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    T& out = db[k * db_stride];
    const double old = beta == 0.0f ? 0.0 : load(out);  // beta = 0 ignores NaN garbage
    out = store<T>(static_cast<float>(alpha * partial[0] + beta * old));
  }
}

void conv_bias_forward(const TensorDescriptor& b_desc, const void* b,
                       const TensorDescriptor& y_desc, void* y, float alpha, float beta,
                       cudaStream_t stream) {
  const BiasGeom g(y_desc);
  const long long total = g.n * g.k * g.plane;
  if (total == 0) return;
  const long long b_stride = static_cast<long long>(b_desc.strides()[1]);
  dispatch_float_type(y_desc.type(), [&](auto tag) {
    using T = decltype(tag);
    bias_fwd_kernel<T><<<grid_for(total), 256, 0, stream>>>(g, static_cast<const T*>(b), b_stride,
                                                            static_cast<T*>(y), alpha, beta);
  });
  ANYDNN_CUDA_LAUNCHED("conv_bias_forward");
}

void conv_bias_backward(const TensorDescriptor& dy_desc, const void* dy,
                        const TensorDescriptor& db_desc, void* db, float alpha, float beta,
                        cudaStream_t stream) {
  const BiasGeom g(dy_desc);
  if (g.k == 0) return;
  ANYDNN_CHECK(g.k <= 0x7fffffffLL, miopenStatusNotImplemented,
               "CUDA convolution bias handles up to 2^31 - 1 channels");
  const long long db_stride = static_cast<long long>(db_desc.strides()[1]);
  dispatch_float_type(dy_desc.type(), [&](auto tag) {
    using T = decltype(tag);
    bias_bwd_kernel<T><<<static_cast<unsigned>(g.k), kReduceBlock, 0, stream>>>(
        g, static_cast<const T*>(dy), static_cast<T*>(db), db_stride, alpha, beta);
  });
  ANYDNN_CUDA_LAUNCHED("conv_bias_backward");
}

// One parameter tensor (1 x K x 1 ...) of a fold: its data, type and channel stride.
struct FoldParam {
  const void* p = nullptr;
  int type = miopenFloat;
  long long stride = 0;
};

FoldParam fold_param(const TensorDescriptor* d, const void* p) {
  if (d == nullptr || p == nullptr) return {};
  const miopenDataType_t t = d->type();
  ANYDNN_CHECK(t == miopenFloat || t == miopenHalf || t == miopenBFloat16 || t == miopenDouble,
               miopenStatusNotImplemented,
               "fused epilogue parameters must be of a floating-point type");
  return {p, static_cast<int>(t), static_cast<long long>(d->strides()[1])};
}

__device__ inline double fold_load(const FoldParam& q, long long k) {
  const long long o = k * q.stride;
  switch (q.type) {
    case miopenHalf:
      return load(static_cast<const __half*>(q.p)[o]);
    case miopenBFloat16:
      return load(static_cast<const __nv_bfloat16*>(q.p)[o]);
    case miopenDouble:
      return static_cast<const double*>(q.p)[o];
    default:
      return static_cast<const float*>(q.p)[o];
  }
}

// conv/epilogue_fold.cpp's fold_epilogue_host, one thread per channel: the same formulas in
// double, rounded once (conv/conv_kernels.hpp's EpilogueFold).
__global__ void fold_epilogue_kernel(long long channels, float alpha, FoldParam bias, bool bn,
                                     FoldParam g, FoldParam beta, FoldParam mean, FoldParam var,
                                     double epsilon, float* scale, float* shift) {
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < channels;
       k += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double b = bias.p ? fold_load(bias, k) : 0.0;
    if (bn) {
      const double a = fold_load(g, k) / sqrt(fold_load(var, k) + epsilon);
      scale[k] = static_cast<float>(a * static_cast<double>(alpha));
      shift[k] = static_cast<float>((b - fold_load(mean, k)) * a + fold_load(beta, k));
    } else {
      if (alpha != 1.0f) scale[k] = alpha;
      shift[k] = static_cast<float>(b);
    }
  }
}

// On the backend's current stream (set_stream may change it between calls).
class CudaConvKernels final : public ConvKernels {
 public:
  explicit CudaConvKernels(const CudaBackend& backend) : backend_(backend) {}
  void bias_forward(const TensorDescriptor& b_desc, const void* b, const TensorDescriptor& y_desc,
                    void* y, float alpha, float beta) const override {
    conv_bias_forward(b_desc, b, y_desc, y, alpha, beta, backend_.cuda_stream());
  }
  void bias_backward(const TensorDescriptor& dy_desc, const void* dy,
                     const TensorDescriptor& db_desc, void* db, float alpha,
                     float beta) const override {
    conv_bias_backward(dy_desc, dy, db_desc, db, alpha, beta, backend_.cuda_stream());
  }
  void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha,
                   float beta) const override {
    cuda::scale_blend(desc, src, dst, alpha, beta, backend_.cuda_stream());
  }
  // A kernel on the stream: the host round trip would wait for the device on every call.
  bool fold_epilogue(const EpilogueFold& f, float* scale, float* shift) const override {
    if (f.channels == 0) return true;
    const bool bn = f.bn_desc != nullptr;
    const FoldParam bias = fold_param(f.bias_desc, f.bias);
    const FoldParam g = bn ? fold_param(f.bn_desc, f.bn_scale) : FoldParam{};
    const FoldParam beta = bn ? fold_param(f.bn_desc, f.bn_shift) : FoldParam{};
    const FoldParam mean = bn ? fold_param(f.bn_desc, f.bn_mean) : FoldParam{};
    const FoldParam var = bn ? fold_param(f.bn_desc, f.bn_var) : FoldParam{};
    const size_t k = f.channels;
    fold_epilogue_kernel<<<grid_for(k, 128), 128, 0, backend_.cuda_stream()>>>(
        static_cast<long long>(k), f.alpha, bias, bn, g, beta, mean, var, f.epsilon, scale, shift);
    ANYDNN_CUDA_LAUNCHED("fused epilogue fold");
    return true;
  }

 private:
  const CudaBackend& backend_;
};

}  // namespace

std::unique_ptr<ConvKernels> make_conv_kernels(const CudaBackend& backend) {
  return std::make_unique<CudaConvKernels>(backend);
}

}  // namespace anydnn::cuda
