// ConvDirectNaiveConvWrw (CUDA): direct backward-weights convolution, one warp per dw element:
// the lanes split the sum over batch and output positions, then a fixed shuffle tree adds
// them up (deterministic). Any shape, layout (any strides), 2-D and 3-D, float types with fp32
// accumulation; overwrites dw, as MIOpen's solvers do.
#include <memory>

#include "backend/cuda/conv/conv_geom.cuh"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "conv/conv_fallbacks.hpp"
#include "conv/conv_solver.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cuda {

namespace {

constexpr unsigned kBlock = 256;  // 8 warps: 8 dw elements per block and round

template <class T>
__global__ void naive_wrw_kernel(ConvGeom g, const T* x, T* dw, const T* dy) {
  const long long total = g.k * g.cpg * g.taps();
  const long long terms = g.n * g.out_pixels();  // summed per dw element
  const int lane = static_cast<int>(threadIdx.x % 32);
  // Every lane of a warp has the same e, so the whole warp reaches each shuffle together.
  for (long long e = thread_index() / 32; e < total; e += thread_count() / 32) {
    long long r = e;
    const long long fx = r % g.f[2];
    r /= g.f[2];
    const long long fy = r % g.f[1];
    r /= g.f[1];
    const long long fz = r % g.f[0];
    r /= g.f[0];
    const long long c = r % g.cpg;
    const long long k = r / g.cpg;
    const long long xc = (k / g.kpg) * g.cpg + c;  // the input channel this weight reads
    float acc = 0.0f;
    for (long long j = lane; j < terms; j += 32) {
      long long q = j;
      const long long ox = q % g.out[2];
      q /= g.out[2];
      const long long oy = q % g.out[1];
      q /= g.out[1];
      const long long oz = q % g.out[0];
      const long long n = q / g.out[0];
      const long long iz = oz * g.st[0] + fz * g.dil[0] - g.pad[0];
      const long long iy = oy * g.st[1] + fy * g.dil[1] - g.pad[1];
      const long long ix = ox * g.st[2] + fx * g.dil[2] - g.pad[2];
      if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1] || ix < 0 || ix >= g.in[2]) continue;
      acc += load(x[n * g.xs[0] + xc * g.xs[1] + iz * g.xs[2] + iy * g.xs[3] + ix * g.xs[4]]) *
             load(dy[n * g.ys[0] + k * g.ys[1] + oz * g.ys[2] + oy * g.ys[3] + ox * g.ys[4]]);
    }
    for (int offset = 16; offset > 0; offset /= 2)
      acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0)
      dw[k * g.ws[0] + c * g.ws[1] + fz * g.ws[2] + fy * g.ws[3] + fx * g.ws[4]] = store<T>(acc);
  }
}

class ConvDirectNaiveWrw final : public ConvDirectNaiveWrwSpec {
 public:
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    CudaBackend* be = &backend_of(ctx);
    const ConvGeom g = conv_geom(p);
    const miopenDataType_t type = p.data_type();
    return [be, g, type](const ConvBuffers& b) {
      const long long total = g.k * g.cpg * g.taps();
      dispatch_float_type(type, [&](auto tag) {
        using T = decltype(tag);
        naive_wrw_kernel<T>
            <<<grid_for(static_cast<size_t>(total) * 32, kBlock), kBlock, 0, be->cuda_stream()>>>(
                g, static_cast<const T*>(b.x), static_cast<T*>(b.w), static_cast<const T*>(b.y));
      });
      ANYDNN_CUDA_LAUNCHED("ConvDirectNaiveConvWrw");
    };
  }
};

}  // namespace

}  // namespace anydnn::cuda

namespace anydnn {

template <>
std::unique_ptr<ConvSolver> make_conv_direct_naive_wrw<BackendKind::Cuda>() {
  return std::make_unique<cuda::ConvDirectNaiveWrw>();
}

}  // namespace anydnn
