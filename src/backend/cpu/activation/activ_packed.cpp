// ActivPacked (CPU): every tensor packed in one order, so the call is one flat loop over the
// elements, split into contiguous chunks across the threads for large tensors; each chunk is a
// unit-stride row the compiler vectorises, for the CPU's instruction set (with_isa).
#include <omp.h>

#include "activation/activation_registry.hpp"
#include "activation/activation_solver_specs.hpp"
#include "backend/cpu/activation/activ_rows.hpp"
#include "backend/cpu/kernels/isa_dispatch.hpp"

namespace anydnn::cpu {

namespace {

using activ_rows::Scale;

// Calls body(begin, end) over [0, n) in one chunk per thread.
template <class F>
void chunked(long long n, int threads, F&& body) {
  if (threads <= 1) {
    body(0LL, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const long long t = omp_get_thread_num(), nt = omp_get_num_threads();
    // Chunk edges on 64-element boundaries keep every thread's vectors aligned alike.
    const long long per = (n / nt + 63) / 64 * 64;
    const long long begin = t * per < n ? t * per : n;
    const long long end = begin + per < n ? begin + per : n;
    if (begin < end) body(begin, end);
  }
}

class ActivPacked final : public ActivPackedSpec {
 public:
  void run(const ExecutionContext& ctx, const ActivationProblem& p,
           const ActivationBuffers& b) const override {
    const long long n = p.geometry().count;
    const int threads = activ_rows::thread_count(ctx.config.num_threads, n);
    const Scale s{b.alpha, b.beta};
    // A local copy: the loops then know no store to y can change it (a reference parameter
    // would be reloaded every element).
    const activ::ActivParams params = p.params();
    const CpuIsa isa = ctx.config.cpu_isa;
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      activ::dispatch_mode(p.mode(), [&](auto mode) {
        constexpr miopenActivationMode_t M = decltype(mode)::value;
        const T* x = static_cast<const T*>(b.x);
        if (p.forward()) {
          T* y = static_cast<T*>(b.y);
          chunked(n, threads, [&](long long i0, long long i1) {
            with_isa(isa, [&] {
              if (b.beta != 0.0f)
                activ_rows::forward_row<M, true, true>(x + i0, 1, y + i0, 1, i1 - i0, params, s);
              else
                activ_rows::forward_row<M, true, false>(x + i0, 1, y + i0, 1, i1 - i0, params, s);
            });
          });
        } else {
          const T* y = static_cast<const T*>(b.y);
          const T* dy = static_cast<const T*>(b.dy);
          T* dx = static_cast<T*>(b.dx);
          chunked(n, threads, [&](long long i0, long long i1) {
            with_isa(isa, [&] {
              if (b.beta != 0.0f)
                activ_rows::backward_row<M, true, true>(x + i0, 1, y + i0, 1, dy + i0, 1, dx + i0,
                                                        1, i1 - i0, params, s);
              else
                activ_rows::backward_row<M, true, false>(x + i0, 1, y + i0, 1, dy + i0, 1, dx + i0,
                                                         1, i1 - i0, params, s);
            });
          });
        }
      });
    });
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<ActivationSolver> make_activ_packed<BackendKind::Cpu>() {
  return std::make_unique<cpu::ActivPacked>();
}

}  // namespace anydnn
