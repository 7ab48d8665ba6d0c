// PoolBwdDirect (CPU): any layout and strides. Rows of inputs (n, c, id, ih) are spread over the
// threads; each dx element gathers from the outputs whose windows cover it
// (pooling_math.hpp), so dx is written once per element, with no zero-fill pass and no races.
#include "backend/cpu/pooling/pool_cpu_util.hpp"
#include "pooling/pooling_registry.hpp"
#include "pooling/pooling_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class PoolBwdDirect final : public PoolBwdDirectSpec {
 public:
  void run(const ExecutionContext& ctx, const PoolingProblem& p,
           const PoolingBuffers& b) const override {
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const pool::PoolGeometry& g = p.geometry();
      const T* dy = static_cast<const T*>(b.dy);
      T* dx = static_cast<T*>(b.dx);
      const long long rows = g.n * g.c * g.in[0] * g.in[1];
      const int threads = pool_util::thread_count(ctx.config.num_threads, g.in_count());
      const auto load = [](const T* ptr) { return to_float(*ptr); };
#pragma omp parallel for num_threads(threads) schedule(static)
      for (long long r = 0; r < rows; ++r) {
        const long long ih = r % g.in[1], id = (r / g.in[1]) % g.in[0];
        const long long nc = r / (g.in[1] * g.in[0]), c = nc % g.c, n = nc / g.c;
        const T* dyp = dy + n * g.ys[0] + c * g.ys[1];
        T* dxp = dx + n * g.xs[0] + c * g.xs[1] + id * g.xs[2] + ih * g.xs[3];
        for (long long iw = 0; iw < g.in[2]; ++iw) {
          const long long i[3] = {id, ih, iw};
          const float v = pool::pool_backward_point(g, dyp, b.workspace, nc, i, load);
          pool_util::blend(dxp + iw * g.xs[4], v, b.alpha, b.beta);
        }
      }
    });
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<PoolingSolver> make_pool_bwd_direct<BackendKind::Cpu>() {
  return std::make_unique<cpu::PoolBwdDirect>();
}

}  // namespace anydnn
