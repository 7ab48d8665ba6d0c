// ConvDirectNaiveConvFwd (CUDA): direct forward convolution, one thread per output element.
// Every shape, stride, dilation, group count, layout (any strides), 2-D and 3-D; float, half and
// bfloat16 with fp32 accumulation, int8 with int32 accumulation into int32 or float. The GPU's
// yardstick and last resort: kept obviously correct, not fast.
#include <cstdint>
#include <memory>
#include <type_traits>

#include "backend/cuda/conv/conv_geom.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "conv/conv_fallbacks.hpp"
#include "conv/conv_solver.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cuda {

namespace {

template <class Acc, class T>
__device__ inline Acc to_acc(T v) {
  if constexpr (std::is_same_v<T, int8_t>) {
    return static_cast<Acc>(v);
  } else {
    return load(v);
  }
}

template <class Out, class Acc>
__device__ inline Out from_acc(Acc v) {
  if constexpr (std::is_same_v<Out, int32_t>) {
    return v;
  } else if constexpr (std::is_integral_v<Acc>) {
    return static_cast<float>(v);  // int8 with float output
  } else {
    return store<Out>(v);
  }
}

template <class In, class Out, class Acc>
__global__ void naive_fwd_kernel(ConvGeom g, const In* x, const In* w, Out* y) {
  const long long total = g.n * g.k * g.out_pixels();
  for (long long i = thread_index(); i < total; i += thread_count()) {
    long long r = i;
    const long long ow = r % g.out[2];
    r /= g.out[2];
    const long long oh = r % g.out[1];
    r /= g.out[1];
    const long long od = r % g.out[0];
    r /= g.out[0];
    const long long k = r % g.k;
    const long long n = r / g.k;
    const long long c0 = (k / g.kpg) * g.cpg;  // first input channel of k's group
    Acc acc = 0;
    for (long long c = 0; c < g.cpg; ++c) {
      const In* xc = x + n * g.xs[0] + (c0 + c) * g.xs[1];
      const In* wc = w + k * g.ws[0] + c * g.ws[1];
      for (long long fz = 0; fz < g.f[0]; ++fz) {
        const long long iz = od * g.st[0] + fz * g.dil[0] - g.pad[0];
        if (iz < 0 || iz >= g.in[0]) continue;
        for (long long fy = 0; fy < g.f[1]; ++fy) {
          const long long iy = oh * g.st[1] + fy * g.dil[1] - g.pad[1];
          if (iy < 0 || iy >= g.in[1]) continue;
          for (long long fx = 0; fx < g.f[2]; ++fx) {
            const long long ix = ow * g.st[2] + fx * g.dil[2] - g.pad[2];
            if (ix < 0 || ix >= g.in[2]) continue;
            acc += to_acc<Acc>(xc[iz * g.xs[2] + iy * g.xs[3] + ix * g.xs[4]]) *
                   to_acc<Acc>(wc[fz * g.ws[2] + fy * g.ws[3] + fx * g.ws[4]]);
          }
        }
      }
    }
    y[n * g.ys[0] + k * g.ys[1] + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4]] = from_acc<Out>(acc);
  }
}

template <class In, class Out, class Acc>
void launch(const ConvGeom& g, const ConvBuffers& b, cudaStream_t stream) {
  const long long total = g.n * g.k * g.out_pixels();
  naive_fwd_kernel<In, Out, Acc><<<grid_for(total), 256, 0, stream>>>(
      g, static_cast<const In*>(b.x), static_cast<const In*>(b.w), static_cast<Out*>(b.y));
  ANYDNN_CUDA_LAUNCHED("ConvDirectNaiveConvFwd");
}

class ConvDirectNaiveFwd final : public ConvDirectNaiveFwdSpec {
 public:
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const ConvGeom g = conv_geom(p);
    if (p.data_type() == miopenInt8) {
      if (p.y().type() == miopenInt32)
        return [be, g](const ConvBuffers& b) {
          launch<int8_t, int32_t, int32_t>(g, b, be->cuda_stream());
        };
      return [be, g](const ConvBuffers& b) {
        launch<int8_t, float, int32_t>(g, b, be->cuda_stream());
      };
    }
    const miopenDataType_t type = p.data_type();
    return [be, g, type](const ConvBuffers& b) {
      dispatch_float_type(type, [&](auto tag) {
        using T = decltype(tag);
        launch<T, T, float>(g, b, be->cuda_stream());
      });
    };
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<ConvSolver> make_conv_direct_naive_fwd<BackendKind::Cuda>() {
  return std::make_unique<cuda::ConvDirectNaiveFwd>();
}

}  // namespace anydnn
