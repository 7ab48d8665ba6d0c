// PoolBwdPlanes (CPU): every dx (d, h, w) plane packed. One (n, c) plane per task: dy is
// scattered into a float plane (max: to the position the forward recorded, decoded from its
// index as PoolBwdDirect's gather matches it; average: dy / divisor over the window), then the
// plane is written once with the blend. Each output is visited once, where the gather walks
// every input and searches the outputs that cover it.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backend/cpu/pooling/pool_cpu_util.hpp"
#include "pooling/pooling_math.hpp"
#include "pooling/pooling_registry.hpp"
#include "pooling/pooling_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

// Where the forward's index for output `o` points, as a flat plane offset, or -1 when it
// points outside o's window or the input (such an index matches no input in the gather).
long long max_position(const pool::PoolGeometry& g, const pool::PoolWindow& w, uint64_t idx) {
  long long p[3];
  if (g.index_mode == miopenPoolingWorkspaceIndexImage) {
    const uint64_t plane = static_cast<uint64_t>(g.in[0] * g.in[1] * g.in[2]);
    if (idx >= plane) return -1;
    const long long f = static_cast<long long>(idx);
    p[0] = f / (g.in[1] * g.in[2]);
    p[1] = f / g.in[2] % g.in[1];
    p[2] = f % g.in[2];
    for (int a = 0; a < 3; ++a)
      if (p[a] < w.start[a] || p[a] >= w.start[a] + g.k[a]) return -1;
  } else {
    const uint64_t window = static_cast<uint64_t>(g.k[0]) * g.k[1] * g.k[2];
    if (idx >= window) return -1;
    const long long f = static_cast<long long>(idx);
    const long long rel[3] = {f / (g.k[1] * g.k[2]), f / g.k[2] % g.k[1], f % g.k[2]};
    for (int a = 0; a < 3; ++a) {
      p[a] = w.start[a] + rel[a];
      if (p[a] < 0 || p[a] >= g.in[a]) return -1;
    }
  }
  return (p[0] * g.in[1] + p[1]) * g.in[2] + p[2];
}

class PoolBwdPlanes final : public PoolBwdPlanesSpec {
 public:
  void run(const ExecutionContext& ctx, const PoolingProblem& p,
           const PoolingBuffers& b) const override {
    dispatch_float_type(p.data_type(), [&](auto tag) { run_typed<decltype(tag)>(ctx, p, b); });
  }

 private:
  template <class T>
  static void run_typed(const ExecutionContext& ctx, const PoolingProblem& p,
                        const PoolingBuffers& b) {
    const pool::PoolGeometry& g = p.geometry();
    const T* dy = static_cast<const T*>(b.dy);
    T* dx = static_cast<T*>(b.dx);
    const long long planes = g.n * g.c, plane = g.in[0] * g.in[1] * g.in[2];
    const long long oplane = g.out[0] * g.out[1] * g.out[2];
    const int threads = pool_util::thread_count(ctx.config.num_threads, g.in_count());
    const bool max = g.mode == miopenPoolingMax;
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> acc(static_cast<size_t>(plane));
#pragma omp for schedule(static)
      for (long long nc = 0; nc < planes; ++nc) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        const long long n = nc / g.c, c = nc % g.c;
        const T* dyp = dy + n * g.ys[0] + c * g.ys[1];
        for (long long od = 0; od < g.out[0]; ++od)
          for (long long oh = 0; oh < g.out[1]; ++oh)
            for (long long ow = 0; ow < g.out[2]; ++ow) {
              const long long o[3] = {od, oh, ow};
              const float v = to_float(dyp[od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4]]);
              const pool::PoolWindow w = pool::pool_window(g, o);
              if (max) {
                const long long flat = nc * oplane + (od * g.out[1] + oh) * g.out[2] + ow;
                const long long at =
                    max_position(g, w, pool::pool_load_index(b.workspace, g.index_type, flat));
                if (at >= 0) acc[static_cast<size_t>(at)] += v;
                continue;
              }
              const float share = v / static_cast<float>(pool::pool_divisor(g, w));
              for (long long d = w.lo[0]; d < w.hi[0]; ++d)
                for (long long h = w.lo[1]; h < w.hi[1]; ++h) {
                  float* row = acc.data() + (d * g.in[1] + h) * g.in[2];
                  for (long long i = w.lo[2]; i < w.hi[2]; ++i)
                    row[i] += share;
                }
            }
        T* dxp = dx + n * g.xs[0] + c * g.xs[1];
        for (long long i = 0; i < plane; ++i)
          pool_util::blend(dxp + i, acc[static_cast<size_t>(i)], b.alpha, b.beta);
      }
    }
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<PoolingSolver> make_pool_bwd_planes<BackendKind::Cpu>() {
  return std::make_unique<cpu::PoolBwdPlanes>();
}

}  // namespace anydnn
