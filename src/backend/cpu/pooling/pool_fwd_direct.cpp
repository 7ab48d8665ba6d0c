// PoolFwdDirect (CPU): any layout and strides. Rows of outputs (n, c, od, oh) are spread over
// the threads; each output element runs pooling_math.hpp's window loop, the code the CUDA
// solver runs, so the two backends agree on ties, NaN and the index encoding by construction.
#include "backend/cpu/pooling/pool_cpu_util.hpp"
#include "pooling/pooling_registry.hpp"
#include "pooling/pooling_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class PoolFwdDirect final : public PoolFwdDirectSpec {
 public:
  void run(const ExecutionContext& ctx, const PoolingProblem& p,
           const PoolingBuffers& b) const override {
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const pool::PoolGeometry& g = p.geometry();
      const T* x = static_cast<const T*>(b.x);
      T* y = static_cast<T*>(b.y);
      const bool save = p.saves_index();
      const float low = pool_util::lowest<T>();
      const long long rows = g.n * g.c * g.out[0] * g.out[1];
      const long long window = static_cast<long long>(g.k[0]) * g.k[1] * g.k[2];
      const int threads = pool_util::thread_count(ctx.config.num_threads, g.out_count() * window);
      const auto load = [](const T* ptr) { return to_float(*ptr); };
#pragma omp parallel for num_threads(threads) schedule(static)
      for (long long r = 0; r < rows; ++r) {
        const long long oh = r % g.out[1], od = (r / g.out[1]) % g.out[0];
        const long long nc = r / (g.out[1] * g.out[0]), c = nc % g.c, n = nc / g.c;
        const T* xp = x + n * g.xs[0] + c * g.xs[1];
        T* yp = y + n * g.ys[0] + c * g.ys[1] + od * g.ys[2] + oh * g.ys[3];
        for (long long ow = 0; ow < g.out[2]; ++ow) {
          const long long o[3] = {od, oh, ow};
          const pool::PoolPoint pt = pool::pool_forward_point(g, xp, o, low, load);
          pool_util::blend(yp + ow * g.ys[4], pt.value, b.alpha, b.beta);
          if (save) pool::pool_store_index(b.workspace, g.index_type, r * g.out[2] + ow, pt.index);
        }
      }
    });
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<PoolingSolver> make_pool_fwd_direct<BackendKind::Cpu>() {
  return std::make_unique<cpu::PoolFwdDirect>();
}

}  // namespace anydnn
