// SoftmaxStrided (CPU): any strides, each tensor its own; the fallback. One group at a time,
// three passes (max, sum, write; backward: dot, write) over offsets from softmax::GroupWalk,
// groups spread over the threads for large tensors.
#include <omp.h>

#include <algorithm>

#include "backend/cpu/activation/activ_rows.hpp"  // thread_count
#include "backend/cpu/cpu_types.hpp"
#include "softmax/softmax_math.hpp"
#include "softmax/softmax_registry.hpp"
#include "softmax/softmax_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class SoftmaxStrided final : public SoftmaxStridedSpec {
 public:
  void run(const ExecutionContext& ctx, const SoftmaxProblem& p,
           const SoftmaxBuffers& b) const override {
    const long long groups = p.groups();
    const int threads = std::min<long long>(
        activ_rows::thread_count(ctx.config.num_threads, groups * p.vector()), groups);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      softmax::dispatch_algorithm(p.algorithm(), [&](auto algo) {
        constexpr miopenSoftmaxAlgorithm_t A = decltype(algo)::value;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
        for (long long g = 0; g < groups; ++g) {
          if (p.forward())
            forward_group<A, T>(p, b, g);
          else
            backward_group<A, T>(p, b, g);
        }
      });
    });
  }

 private:
  template <miopenSoftmaxAlgorithm_t A, class T>
  static void forward_group(const SoftmaxProblem& p, const SoftmaxBuffers& b, long long g) {
    const softmax::GroupWalk walk = softmax::group_walk(p);
    const T* x = static_cast<const T*>(b.x);
    T* y = static_cast<T*>(b.y);
    const long long vec = p.vector();
    float m = -INFINITY, s = 0.0f;
    if (A != MIOPEN_SOFTMAX_FAST)
      for (long long v = 0; v < vec; ++v)
        m = std::max(m, to_float(x[walk.offset(p.in_strides(), g, v)]));
    for (long long v = 0; v < vec; ++v)
      s += softmax::forward_term<A>(to_float(x[walk.offset(p.in_strides(), g, v)]), m);
    const softmax::FwdStats st = softmax::forward_stats<A>(m, s);
    const bool prior = p.beta() != 0.0f;
    for (long long v = 0; v < vec; ++v) {
      const float r = softmax::forward_value<A>(to_float(x[walk.offset(p.in_strides(), g, v)]), st);
      T& out = y[walk.offset(p.out_strides(), g, v)];
      out = from_float<T>(
          softmax::blend(r, p.alpha(), p.beta(), prior ? to_float(out) : 0.0f, prior));
    }
  }

  template <miopenSoftmaxAlgorithm_t A, class T>
  static void backward_group(const SoftmaxProblem& p, const SoftmaxBuffers& b, long long g) {
    const softmax::GroupWalk walk = softmax::group_walk(p);
    const T* y = static_cast<const T*>(b.y);
    const T* dy = static_cast<const T*>(b.dy);
    T* dx = static_cast<T*>(b.dx);
    const long long vec = p.vector();
    float dot = 0.0f;
    for (long long v = 0; v < vec; ++v)
      dot += softmax::backward_term<A>(to_float(y[walk.offset(p.in_strides(), g, v)]),
                                       to_float(dy[walk.offset(p.grad_strides(), g, v)]));
    const bool prior = p.beta() != 0.0f;
    for (long long v = 0; v < vec; ++v) {
      const float r =
          softmax::backward_value<A>(to_float(y[walk.offset(p.in_strides(), g, v)]),
                                     to_float(dy[walk.offset(p.grad_strides(), g, v)]), dot);
      T& out = dx[walk.offset(p.out_strides(), g, v)];
      out = from_float<T>(
          softmax::blend(r, p.alpha(), p.beta(), prior ? to_float(out) : 0.0f, prior));
    }
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<SoftmaxSolver> make_softmax_strided<BackendKind::Cpu>() {
  return std::make_unique<cpu::SoftmaxStrided>();
}

}  // namespace anydnn
