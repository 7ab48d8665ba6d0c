// ConvDirectNaiveConvBwd (CUDA): direct backward-data convolution, one thread per dx element,
// gathering over the dy elements whose receptive field covers it (no atomics: deterministic).
// Any shape, layout (any strides), 2-D and 3-D, float types with fp32 accumulation.
#include <memory>

#include "backend/cuda/conv/conv_geom.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "conv/conv_fallbacks.hpp"
#include "conv/conv_solver.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cuda {

namespace {

template <class T>
__global__ void naive_bwd_kernel(ConvGeom g, T* dx, const T* w, const T* dy) {
  const long long total = g.n * g.c * g.in_pixels();
  for (long long i = thread_index(); i < total; i += thread_count()) {
    long long r = i;
    const long long ix = r % g.in[2];
    r /= g.in[2];
    const long long iy = r % g.in[1];
    r /= g.in[1];
    const long long iz = r % g.in[0];
    r /= g.in[0];
    const long long c = r % g.c;
    const long long n = r / g.c;
    const long long k0 = (c / g.cpg) * g.kpg;  // first output channel of c's group
    const long long cw = c % g.cpg;            // c's index inside the group's filters
    float acc = 0.0f;
    for (long long kk = 0; kk < g.kpg; ++kk) {
      const T* dyk = dy + n * g.ys[0] + (k0 + kk) * g.ys[1];
      const T* wk = w + (k0 + kk) * g.ws[0] + cw * g.ws[1];
      for (long long fz = 0; fz < g.f[0]; ++fz) {
        const long long oz = conv_tap(iz, fz, g.pad[0], g.st[0], g.dil[0], g.out[0]);
        if (oz < 0) continue;
        for (long long fy = 0; fy < g.f[1]; ++fy) {
          const long long oy = conv_tap(iy, fy, g.pad[1], g.st[1], g.dil[1], g.out[1]);
          if (oy < 0) continue;
          for (long long fx = 0; fx < g.f[2]; ++fx) {
            const long long ox = conv_tap(ix, fx, g.pad[2], g.st[2], g.dil[2], g.out[2]);
            if (ox < 0) continue;
            acc += load(dyk[oz * g.ys[2] + oy * g.ys[3] + ox * g.ys[4]]) *
                   load(wk[fz * g.ws[2] + fy * g.ws[3] + fx * g.ws[4]]);
          }
        }
      }
    }
    dx[n * g.xs[0] + c * g.xs[1] + iz * g.xs[2] + iy * g.xs[3] + ix * g.xs[4]] = store<T>(acc);
  }
}

class ConvDirectNaiveBwd final : public ConvDirectNaiveBwdSpec {
 public:
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const ConvGeom g = conv_geom(p);
    const miopenDataType_t type = p.data_type();
    return [be, g, type](const ConvBuffers& b) {
      dispatch_float_type(type, [&](auto tag) {
        using T = decltype(tag);
        const long long total = g.n * g.c * g.in_pixels();
        naive_bwd_kernel<T><<<grid_for(total), 256, 0, be->cuda_stream()>>>(
            g, static_cast<T*>(b.x), static_cast<const T*>(b.w), static_cast<const T*>(b.y));
      });
      ANYDNN_CUDA_LAUNCHED("ConvDirectNaiveConvBwd");
    };
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<ConvSolver> make_conv_direct_naive_bwd<BackendKind::Cuda>() {
  return std::make_unique<cuda::ConvDirectNaiveBwd>();
}

}  // namespace anydnn
