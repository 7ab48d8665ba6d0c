// PoolFwdChannelsLast (CPU): x and y packed NHWC / NDHWC. Output pixels (n, od, oh, ow) are
// spread over the threads; for each, the window positions are visited in d, h, w order and each
// contributes one contiguous row of C channels, accumulated in an fp32 row the compiler
// vectorises. Visiting positions in the same order as pooling_math.hpp's per-element loop keeps
// MIOpen's tie rule (first strictly greater wins) channel by channel.
#include <vector>

#include "backend/cpu/pooling/pool_cpu_util.hpp"
#include "pooling/pooling_registry.hpp"
#include "pooling/pooling_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class PoolFwdChannelsLast final : public PoolFwdChannelsLastSpec {
 public:
  void run(const ExecutionContext& ctx, const PoolingProblem& p,
           const PoolingBuffers& b) const override {
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const pool::PoolGeometry& g = p.geometry();
      const T* x = static_cast<const T*>(b.x);
      T* y = static_cast<T*>(b.y);
      const bool max = g.mode == miopenPoolingMax, save = p.saves_index();
      const float low = pool_util::lowest<T>();
      const long long C = g.c, pixels = g.n * g.out[0] * g.out[1] * g.out[2];
      const long long plane = g.out[0] * g.out[1] * g.out[2];
      const long long window = static_cast<long long>(g.k[0]) * g.k[1] * g.k[2];
      const int threads = pool_util::thread_count(ctx.config.num_threads, g.out_count() * window);
#pragma omp parallel num_threads(threads)
      {
        std::vector<float> acc(C);
        std::vector<unsigned long long> idx(max && save ? C : 0);
#pragma omp for schedule(static)
        for (long long px = 0; px < pixels; ++px) {
          const long long ow = px % g.out[2], oh = (px / g.out[2]) % g.out[1];
          const long long od = (px / (g.out[2] * g.out[1])) % g.out[0];
          const long long n = px / plane;
          const long long o[3] = {od, oh, ow};
          const pool::PoolWindow w = pool::pool_window(g, o);
          float* a = acc.data();
          for (long long c = 0; c < C; ++c)
            a[c] = max ? low : 0.0f;
          for (long long c = 0; c < static_cast<long long>(idx.size()); ++c)
            idx[c] = 0;
          const T* xn = x + n * g.xs[0];
          for (long long d = w.lo[0]; d < w.hi[0]; ++d)
            for (long long h = w.lo[1]; h < w.hi[1]; ++h)
              for (long long i = w.lo[2]; i < w.hi[2]; ++i) {
                const T* row = xn + d * g.xs[2] + h * g.xs[3] + i * g.xs[4];
                if (!max) {
                  for (long long c = 0; c < C; ++c)
                    a[c] += to_float(row[c]);
                } else if (!save) {
                  for (long long c = 0; c < C; ++c) {
                    const float v = to_float(row[c]);
                    a[c] = v > a[c] ? v : a[c];  // NaN never wins, as v > a is false
                  }
                } else {
                  const unsigned long long here =
                      g.index_mode == miopenPoolingWorkspaceIndexImage
                          ? static_cast<unsigned long long>((d * g.in[1] + h) * g.in[2] + i)
                          : static_cast<unsigned long long>(
                                ((d - w.start[0]) * g.k[1] + (h - w.start[1])) * g.k[2] +
                                (i - w.start[2]));
                  for (long long c = 0; c < C; ++c) {
                    const float v = to_float(row[c]);
                    if (v > a[c]) {
                      a[c] = v;
                      idx[c] = here;
                    }
                  }
                }
              }
          const float div = static_cast<float>(pool::pool_divisor(g, w));
          T* yp = y + n * g.ys[0] + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4];
          for (long long c = 0; c < C; ++c)
            pool_util::blend(yp + c, max ? a[c] : a[c] / div, b.alpha, b.beta);
          if (max && save) {
            const long long base = n * C * plane + (od * g.out[1] + oh) * g.out[2] + ow;
            for (long long c = 0; c < C; ++c)
              pool::pool_store_index(b.workspace, g.index_type, base + c * plane, idx[c]);
          }
        }
      }
    });
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<PoolingSolver> make_pool_fwd_channels_last<BackendKind::Cpu>() {
  return std::make_unique<cpu::PoolFwdChannelsLast>();
}

}  // namespace anydnn
