// ActivPacked (CUDA): every tensor packed in one order, so the call is one flat grid-stride
// loop. Where every buffer is 16-byte aligned each thread moves 16 bytes per tensor at a time
// (4 floats, 8 halves) and a scalar loop takes the tail; otherwise every access is scalar.
#include "activation/activation_registry.hpp"
#include "activation/activation_solver_specs.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"

namespace anydnn::cuda {

namespace {

constexpr unsigned kBlock = 256;

// V elements of T moved as one 16-byte (or smaller) access.
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

template <class T>
__device__ inline float out_value(float v, float alpha, float beta, const T& prior, bool read) {
  return read ? alpha * v + beta * load(prior) : alpha * v;
}

template <miopenActivationMode_t M, class T, int V, bool Prior>
__global__ void __launch_bounds__(kBlock)
    packed_forward(const T* x, T* y, long long n, activ::ActivParams p, float alpha, float beta) {
  using P = Pack<T, V>;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long nv = n / V;
  for (long long i = first; i < nv; i += step) {
    const P in = reinterpret_cast<const P*>(x)[i];
    P out;
    if constexpr (Prior) out = reinterpret_cast<const P*>(y)[i];
#pragma unroll
    for (int k = 0; k < V; ++k)
      out.v[k] =
          store<T>(out_value(activ::forward<M>(load(in.v[k]), p), alpha, beta, out.v[k], Prior));
    reinterpret_cast<P*>(y)[i] = out;
  }
  for (long long i = nv * V + first; i < n; i += step)
    y[i] = store<T>(out_value(activ::forward<M>(load(x[i]), p), alpha, beta, y[i], Prior));
}

template <miopenActivationMode_t M, class T, int V, bool Prior>
__global__ void __launch_bounds__(kBlock)
    packed_backward(const T* x, const T* y, const T* dy, T* dx, long long n, activ::ActivParams p,
                    float alpha, float beta) {
  using P = Pack<T, V>;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long nv = n / V;
  for (long long i = first; i < nv; i += step) {
    const P xv = reinterpret_cast<const P*>(x)[i];
    const P yv = reinterpret_cast<const P*>(y)[i];
    const P dyv = reinterpret_cast<const P*>(dy)[i];
    P out;
    if constexpr (Prior) out = reinterpret_cast<const P*>(dx)[i];
#pragma unroll
    for (int k = 0; k < V; ++k)
      out.v[k] =
          store<T>(out_value(activ::backward<M>(load(dyv.v[k]), load(xv.v[k]), load(yv.v[k]), p),
                             alpha, beta, out.v[k], Prior));
    reinterpret_cast<P*>(dx)[i] = out;
  }
  for (long long i = nv * V + first; i < n; i += step)
    dx[i] = store<T>(out_value(activ::backward<M>(load(dy[i]), load(x[i]), load(y[i]), p), alpha,
                               beta, dx[i], Prior));
}

bool aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// Enough blocks to keep every SM busy; the grid-stride loop takes the rest.
unsigned grid_blocks(const CudaBackend& be, long long items) {
  const long long want = (items + kBlock - 1) / kBlock;
  const long long cap = static_cast<long long>(be.properties().multiProcessorCount) * 16;
  return static_cast<unsigned>(want < 1 ? 1 : (want < cap ? want : cap));
}

class ActivPacked final : public ActivPackedSpec {
 public:
  void run(const ExecutionContext& ctx, const ActivationProblem& p,
           const ActivationBuffers& b) const override {
    CudaBackend& be = backend_of(ctx);
    const long long n = p.geometry().count;
    const bool fwd = p.forward();
    const bool vec =
        aligned16(b.x) && aligned16(b.y) && (fwd || (aligned16(b.dy) && aligned16(b.dx)));
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      constexpr int kV = 16 / sizeof(T);
      activ::dispatch_mode(p.mode(), [&](auto mode) {
        constexpr miopenActivationMode_t M = decltype(mode)::value;
        if (vec)
          launch<M, T, kV>(be, p, b, n);
        else
          launch<M, T, 1>(be, p, b, n);
      });
    });
    ANYDNN_CUDA_LAUNCHED("activation (packed)");
  }

 private:
  template <miopenActivationMode_t M, class T, int V>
  static void launch(CudaBackend& be, const ActivationProblem& p, const ActivationBuffers& b,
                     long long n) {
    const unsigned grid = grid_blocks(be, (n + V - 1) / V);
    cudaStream_t s = be.cuda_stream();
    const T* x = static_cast<const T*>(b.x);
    if (p.forward()) {
      T* y = static_cast<T*>(b.y);
      if (b.beta != 0.0f)
        packed_forward<M, T, V, true><<<grid, kBlock, 0, s>>>(x, y, n, p.params(), b.alpha, b.beta);
      else
        packed_forward<M, T, V, false>
            <<<grid, kBlock, 0, s>>>(x, y, n, p.params(), b.alpha, b.beta);
      return;
    }
    const T* y = static_cast<const T*>(b.y);
    const T* dy = static_cast<const T*>(b.dy);
    T* dx = static_cast<T*>(b.dx);
    if (b.beta != 0.0f)
      packed_backward<M, T, V, true>
          <<<grid, kBlock, 0, s>>>(x, y, dy, dx, n, p.params(), b.alpha, b.beta);
    else
      packed_backward<M, T, V, false>
          <<<grid, kBlock, 0, s>>>(x, y, dy, dx, n, p.params(), b.alpha, b.beta);
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<ActivationSolver> make_activ_packed<BackendKind::Cuda>() {
  return std::make_unique<cuda::ActivPacked>();
}

}  // namespace anydnn
