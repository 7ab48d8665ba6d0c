// LrnWithinChannel (CPU): miopenLRNWithinChannel, any strides. One map (n, c) at a time: its
// squares (forward) or dy * y / scale terms (backward) go into an H x W buffer, whose N x N
// window sums are taken separably (along each row, then along each column of the row sums).
// Maps are spread over the threads for large tensors.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backend/cpu/activation/activ_rows.hpp"  // thread_count
#include "backend/cpu/lrn/lrn_cpu_common.hpp"
#include "lrn/lrn_registry.hpp"
#include "lrn/lrn_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class LrnWithinChannel final : public LrnWithinChannelSpec {
 public:
  void run(const ExecutionContext& ctx, const LrnProblem& p, const LrnBuffers& b) const override {
    const auto& l = p.lens();
    const long long maps = l[0] * l[1];
    if (p.elements() == 0) return;
    const int threads = static_cast<int>(
        std::min<long long>(activ_rows::thread_count(ctx.config.num_threads, p.elements()), maps));
    const lrn::Consts k = lrn::consts_of(p);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const lrn_cpu::Tensors<T> t(b);
#pragma omp parallel num_threads(threads) if (threads > 1)
      {
        const size_t plane = static_cast<size_t>(l[2] * l[3]);
        std::vector<float> terms(plane), rows(plane), sums(plane);
#pragma omp for schedule(static)
        for (long long m = 0; m < maps; ++m) {
          const long long n = m / l[1], c = m % l[1];
          if (p.forward())
            forward_map(p, k, t, n, c, terms.data(), rows.data(), sums.data());
          else
            backward_map(p, k, t, n, c, terms.data(), rows.data(), sums.data());
        }
      }
    });
  }

 private:
  // sums = the window sums of terms ([i - before, i + after] along both axes), rows the
  // intermediate row sums.
  static void plane_window(const float* terms, float* rows, float* sums, long long H, long long W,
                           int before, int after) {
    for (long long h = 0; h < H; ++h)
      lrn_cpu::window_sum(terms + h * W, rows + h * W, W, 1, before, after);
    for (long long w = 0; w < W; ++w)
      lrn_cpu::window_sum(rows + w, sums + w, H, W, before, after);
  }

  template <class T>
  static void forward_map(const LrnProblem& p, const lrn::Consts& k, const lrn_cpu::Tensors<T>& t,
                          long long n, long long c, float* terms, float* rows, float* sums) {
    const long long H = p.lens()[2], W = p.lens()[3];
    const LrnStrides xs = p.x_strides(), ys = p.y_strides();
    for (long long h = 0; h < H; ++h)
      for (long long w = 0; w < W; ++w) {
        const float v = to_float(t.x[lrn::offset(xs, n, c, h, w)]);
        terms[h * W + w] = v * v;
      }
    plane_window(terms, rows, sums, H, W, k.pre_pad, k.pad);
    const bool save = p.uses_workspace();
    for (long long h = 0; h < H; ++h)
      for (long long w = 0; w < W; ++w) {
        const float scale = lrn::scale_of(sums[h * W + w], k);
        const long long yo = lrn::offset(ys, n, c, h, w);
        t.y[yo] =
            from_float<T>(lrn::forward_value(to_float(t.x[lrn::offset(xs, n, c, h, w)]), scale, k));
        if (save) t.scale[yo] = from_float<T>(scale);
      }
  }

  template <class T>
  static void backward_map(const LrnProblem& p, const lrn::Consts& k, const lrn_cpu::Tensors<T>& t,
                           long long n, long long c, float* terms, float* rows, float* sums) {
    const long long H = p.lens()[2], W = p.lens()[3];
    const LrnStrides xs = p.x_strides(), ys = p.y_strides(), dys = p.dy_strides(),
                     dxs = p.dx_strides();
    for (long long h = 0; h < H; ++h)
      for (long long w = 0; w < W; ++w) {
        const long long yo = lrn::offset(ys, n, c, h, w);
        terms[h * W + w] = to_float(t.dy[lrn::offset(dys, n, c, h, w)]) * to_float(t.y[yo]) /
                           to_float(t.scale[yo]);
      }
    plane_window(terms, rows, sums, H, W, k.pad, k.pre_pad);  // the transposed window
    for (long long h = 0; h < H; ++h)
      for (long long w = 0; w < W; ++w)
        t.dx[lrn::offset(dxs, n, c, h, w)] = from_float<T>(
            lrn::backward_value(to_float(t.dy[lrn::offset(dys, n, c, h, w)]),
                                to_float(t.scale[lrn::offset(ys, n, c, h, w)]),
                                to_float(t.x[lrn::offset(xs, n, c, h, w)]), sums[h * W + w], k));
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<LrnSolver> make_lrn_within_channel<BackendKind::Cpu>() {
  return std::make_unique<cpu::LrnWithinChannel>();
}

}  // namespace anydnn
