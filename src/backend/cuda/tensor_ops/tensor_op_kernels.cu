#include <cstdint>
#include <cstring>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/tensor_ops/tensor_op_kernels.hpp"

namespace anydnn::cuda {

namespace {

constexpr unsigned kBlock = 256;

// Compute types as on the CPU: fp32 for the float types and int8 (copied only), double for
// double and int32.
__device__ inline float ld(float v) {
  return v;
}
__device__ inline float ld(__half v) {
  return __half2float(v);
}
__device__ inline float ld(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ inline float ld(int8_t v) {
  return v;
}
__device__ inline double ld(double v) {
  return v;
}
__device__ inline double ld(int32_t v) {
  return v;
}

template <class T, class C>
__device__ inline T st(C v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(v);
  else
    return static_cast<T>(v);
}

// The plan's scalars and strides in the form kernels read.
struct Args {
  int ndim;
  unsigned long long lens[TensorOpPlan::kMaxDims];
  unsigned long long a[TensorOpPlan::kMaxDims], b[TensorOpPlan::kMaxDims],
      c[TensorOpPlan::kMaxDims];
  unsigned long long count, inner, rows;
  double alpha1, alpha2, beta;
  uint64_t fill_bits;
  bool read_c;  // beta != 0: the old output takes part
};

// One element: the old value of c is read only when the op needs it (beta 0 ignores NaN there).
template <ElementwiseOp Op, class T>
__device__ inline void element(const T* a, const T* b, T* c, const Args& g) {
  if constexpr (Op == ElementwiseOp::Fill) {
    // Fill is dispatched on the element size with an unsigned T.
    T v;
    memcpy(&v, &g.fill_bits, sizeof v);
    *c = v;
  } else if constexpr (Op == ElementwiseOp::Scale) {
    using C = decltype(ld(T{}));
    *c = st<T>(static_cast<C>(g.alpha1) * ld(*c));
  } else {
    using C = decltype(ld(T{}));
    const C x = static_cast<C>(g.alpha1) * ld(*a);
    C r = x;
    if constexpr (Op != ElementwiseOp::Copy) {
      const C y = static_cast<C>(g.alpha2) * ld(*b);
      if constexpr (Op == ElementwiseOp::Add) r = x + y;
      if constexpr (Op == ElementwiseOp::Mul) r = x * y;
      if constexpr (Op == ElementwiseOp::Min) r = x < y ? x : y;  // MIOpen's NaN behaviour
      if constexpr (Op == ElementwiseOp::Max) r = x > y ? x : y;
    }
    if (g.read_c) r += static_cast<C>(g.beta) * ld(*c);
    *c = st<T>(r);
  }
}

// Pointers may be null for tensors the op does not read; offsets into them are never used.
template <class T>
__device__ inline const T* at(const T* p, unsigned long long off) {
  return p == nullptr ? nullptr : p + off;
}

template <ElementwiseOp Op, class T>
__global__ void __launch_bounds__(kBlock) flat_kernel(const T* a, const T* b, T* c, Args g) {
  const unsigned long long bs = g.b[0];  // 1, or 0 for one broadcast value
  for (unsigned long long i =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < g.count; i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    element<Op>(at(a, i), at(b, i * bs), c + i, g);
}

template <ElementwiseOp Op, class T>
__global__ void __launch_bounds__(kBlock) rows_kernel(const T* a, const T* b, T* c, Args g) {
  const int outer = g.ndim - 1;
  const unsigned long long bs = g.b[outer];
  for (unsigned long long r = blockIdx.y; r < g.rows; r += gridDim.y) {
    unsigned long long rem = r, oa = 0, ob = 0, oc = 0;
    for (int d = outer - 1; d >= 0; --d) {
      const unsigned long long k = rem % g.lens[d];
      rem /= g.lens[d];
      oa += k * g.a[d];
      ob += k * g.b[d];
      oc += k * g.c[d];
    }
    for (unsigned long long j =
             blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
         j < g.inner; j += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
      element<Op>(at(a, oa + j), at(b, ob + j * bs), c + oc + j, g);
  }
}

template <ElementwiseOp Op, class T>
__global__ void __launch_bounds__(kBlock) strided_kernel(const T* a, const T* b, T* c, Args g) {
  for (unsigned long long i =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < g.count; i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    unsigned long long rem = i, oa = 0, ob = 0, oc = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const unsigned long long k = rem % g.lens[d];
      rem /= g.lens[d];
      oa += k * g.a[d];
      ob += k * g.b[d];
      oc += k * g.c[d];
    }
    element<Op>(at(a, oa), at(b, ob), c + oc, g);
  }
}

Args args_of(const TensorOpPlan& p) {
  Args g{};
  g.ndim = p.ndim;
  for (int i = 0; i < p.ndim; ++i) {
    g.lens[i] = p.lens[i];
    g.a[i] = p.a[i];
    g.b[i] = p.b[i];
    g.c[i] = p.c[i];
  }
  g.count = p.count;
  g.inner = p.inner();
  g.rows = p.rows();
  g.alpha1 = p.alpha1;
  g.alpha2 = p.alpha2;
  g.beta = p.beta;
  g.fill_bits = p.fill_bits;
  g.read_c = p.op != ElementwiseOp::Fill && p.op != ElementwiseOp::Scale && p.beta != 0.0;
  return g;
}

template <ElementwiseOp Op, class T>
void launch(const TensorOpPlan& p, const TensorOpBuffers& bufs, TensorOpWalk walk, cudaStream_t s) {
  const Args g = args_of(p);
  const T* a = static_cast<const T*>(bufs.a);
  const T* b = static_cast<const T*>(bufs.b);
  T* c = static_cast<T*>(bufs.c);
  switch (walk) {
    case TensorOpWalk::Flat:
      flat_kernel<Op, T><<<grid_for(g.count, kBlock), kBlock, 0, s>>>(a, b, c, g);
      break;
    case TensorOpWalk::Rows: {
      const unsigned gx = grid_for(g.inner, kBlock) < 64 ? grid_for(g.inner, kBlock) : 64;
      const unsigned long long gy = g.rows < 65535ull ? g.rows : 65535ull;
      rows_kernel<Op, T><<<dim3(gx, static_cast<unsigned>(gy)), kBlock, 0, s>>>(a, b, c, g);
      break;
    }
    case TensorOpWalk::Strided:
      strided_kernel<Op, T><<<grid_for(g.count, kBlock), kBlock, 0, s>>>(a, b, c, g);
      break;
  }
  ANYDNN_CUDA_LAUNCHED("tensor-op kernel");
}

template <ElementwiseOp Op>
void float_types(const TensorOpPlan& p, const TensorOpBuffers& b, TensorOpWalk w, cudaStream_t s) {
  switch (p.type) {
    case miopenFloat:
      return launch<Op, float>(p, b, w, s);
    case miopenHalf:
      return launch<Op, __half>(p, b, w, s);
    case miopenBFloat16:
      return launch<Op, __nv_bfloat16>(p, b, w, s);
    default:
      ANYDNN_THROW(miopenStatusInternalError, elementwise_op_name(Op)
                                                  << " planned for " << data_type_name(p.type));
  }
}

template <ElementwiseOp Op>
void all_types(const TensorOpPlan& p, const TensorOpBuffers& b, TensorOpWalk w, cudaStream_t s) {
  switch (p.type) {
    case miopenDouble:
      return launch<Op, double>(p, b, w, s);
    case miopenInt32:
      return launch<Op, int32_t>(p, b, w, s);
    case miopenInt8:
      return launch<Op, int8_t>(p, b, w, s);
    default:
      return float_types<Op>(p, b, w, s);
  }
}

}  // namespace

void launch_tensor_op(const TensorOpPlan& p, const TensorOpBuffers& b, TensorOpWalk walk,
                      cudaStream_t stream) {
  if (p.count == 0) return;
  switch (p.op) {
    case ElementwiseOp::Add:
      return float_types<ElementwiseOp::Add>(p, b, walk, stream);
    case ElementwiseOp::Mul:
      return float_types<ElementwiseOp::Mul>(p, b, walk, stream);
    case ElementwiseOp::Min:
      return float_types<ElementwiseOp::Min>(p, b, walk, stream);
    case ElementwiseOp::Max:
      return float_types<ElementwiseOp::Max>(p, b, walk, stream);
    case ElementwiseOp::Copy:
      return all_types<ElementwiseOp::Copy>(p, b, walk, stream);
    case ElementwiseOp::Scale:
      return all_types<ElementwiseOp::Scale>(p, b, walk, stream);
    case ElementwiseOp::Fill:
      // By element size: the value's bytes are stored as they are.
      switch (data_type_size(p.type)) {
        case 1:
          return launch<ElementwiseOp::Fill, uint8_t>(p, b, walk, stream);
        case 2:
          return launch<ElementwiseOp::Fill, uint16_t>(p, b, walk, stream);
        case 4:
          return launch<ElementwiseOp::Fill, uint32_t>(p, b, walk, stream);
        default:
          return launch<ElementwiseOp::Fill, uint64_t>(p, b, walk, stream);
      }
  }
}

}  // namespace anydnn::cuda
