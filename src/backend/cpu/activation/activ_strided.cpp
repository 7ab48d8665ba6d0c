// ActivStrided (CPU): any strides. The problem's geometry has already merged every dimension
// the tensors are contiguous across, so the walk is over rows of its innermost dimension: each
// row's start is decomposed from the row index (rows are spread over the threads), and the row
// runs with each tensor's own inner stride, vectorised when those are all 1 (padded rows,
// slices of larger tensors).
#include "activation/activation_registry.hpp"
#include "activation/activation_solver_specs.hpp"
#include "backend/cpu/activation/activ_rows.hpp"

namespace anydnn::cpu {

namespace {

using activ_rows::Scale;

class ActivStrided final : public ActivStridedSpec {
 public:
  void run(const ExecutionContext& ctx, const ActivationProblem& p,
           const ActivationBuffers& b) const override {
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      activ::dispatch_mode(p.mode(), [&](auto mode) {
        constexpr miopenActivationMode_t M = decltype(mode)::value;
        if (b.beta != 0.0f)
          walk<M, T, true>(ctx, p, b);
        else
          walk<M, T, false>(ctx, p, b);
      });
    });
  }

 private:
  template <miopenActivationMode_t M, class T, bool Prior>
  static void walk(const ExecutionContext& ctx, const ActivationProblem& p,
                   const ActivationBuffers& b) {
    const ActivGeometry& g = p.geometry();
    const int inner = g.rank - 1;
    const long long len = g.lens[inner], rows = g.count / len;
    const bool unit = g.unit_inner_stride();
    const int threads = activ_rows::thread_count(ctx.config.num_threads, g.count);
    const Scale s{b.alpha, b.beta};
    const T* x = static_cast<const T*>(b.x);
    constexpr int kX = ActivationProblem::kX, kY = ActivationProblem::kY,
                  kDx = ActivationProblem::kDx, kDy = ActivationProblem::kDy;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long long r = 0; r < rows; ++r) {
      long long off[ActivGeometry::kMaxTensors] = {};
      long long rest = r;
      for (int k = inner - 1; k >= 0; --k) {
        const long long i = rest % g.lens[k];
        rest /= g.lens[k];
        for (int t = 0; t < g.tensors; ++t)
          off[t] += i * g.strides[t][k];
      }
      if (p.forward()) {
        T* y = static_cast<T*>(b.y);
        if (unit)
          activ_rows::forward_row<M, true, Prior>(x + off[kX], 1, y + off[kY], 1, len, p.params(),
                                                  s);
        else
          activ_rows::forward_row<M, false, Prior>(x + off[kX], g.strides[kX][inner], y + off[kY],
                                                   g.strides[kY][inner], len, p.params(), s);
      } else {
        const T* y = static_cast<const T*>(b.y);
        const T* dy = static_cast<const T*>(b.dy);
        T* dx = static_cast<T*>(b.dx);
        if (unit)
          activ_rows::backward_row<M, true, Prior>(x + off[kX], 1, y + off[kY], 1, dy + off[kDy], 1,
                                                   dx + off[kDx], 1, len, p.params(), s);
        else
          activ_rows::backward_row<M, false, Prior>(
              x + off[kX], g.strides[kX][inner], y + off[kY], g.strides[kY][inner], dy + off[kDy],
              g.strides[kDy][inner], dx + off[kDx], g.strides[kDx][inner], len, p.params(), s);
      }
    }
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<ActivationSolver> make_activ_strided<BackendKind::Cpu>() {
  return std::make_unique<cpu::ActivStrided>();
}

}  // namespace anydnn
