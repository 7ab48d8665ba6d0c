// LrnCrossChannel (CPU): miopenLRNCrossChannel, any strides. One image row (n, h) at a time:
// the row's squares (forward) or dy * y / scale terms (backward) for every channel go into a
// C x W buffer, then each channel's window over the buffer's rows is summed W pixels at a time
// (unit-stride, vectorisable). Rows are spread over the threads for large tensors.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backend/cpu/activation/activ_rows.hpp"  // thread_count
#include "backend/cpu/lrn/lrn_cpu_common.hpp"
#include "lrn/lrn_registry.hpp"
#include "lrn/lrn_solver_specs.hpp"

namespace anydnn::cpu {

namespace {

class LrnCrossChannel final : public LrnCrossChannelSpec {
 public:
  void run(const ExecutionContext& ctx, const LrnProblem& p, const LrnBuffers& b) const override {
    const auto& l = p.lens();
    const long long rows = l[0] * l[2];
    if (p.elements() == 0) return;
    const int threads = static_cast<int>(
        std::min<long long>(activ_rows::thread_count(ctx.config.num_threads, p.elements()), rows));
    const lrn::Consts k = lrn::consts_of(p);
    dispatch_float_type(p.data_type(), [&](auto tag) {
      using T = decltype(tag);
      const lrn_cpu::Tensors<T> t(b);
#pragma omp parallel num_threads(threads) if (threads > 1)
      {
        std::vector<float> terms(l[1] * l[3]), sums(l[3]);
#pragma omp for schedule(static)
        for (long long r = 0; r < rows; ++r) {
          if (p.forward())
            forward_row(p, k, t, r / l[2], r % l[2], terms.data(), sums.data());
          else
            backward_row(p, k, t, r / l[2], r % l[2], terms.data(), sums.data());
        }
      }
    });
  }

 private:
  // sums[w] = the sum of terms[c' * W + w] over channels c' in [c - before, c + after].
  static void channel_window(const float* terms, float* sums, long long c, long long channels,
                             long long width, int before, int after) {
    std::fill(sums, sums + width, 0.0f);
    const long long lo = lrn::window_lo(c, before), hi = lrn::window_hi(c, after, channels);
    for (long long j = lo; j <= hi; ++j)
      for (long long w = 0; w < width; ++w)
        sums[w] += terms[j * width + w];
  }

  template <class T>
  static void forward_row(const LrnProblem& p, const lrn::Consts& k, const lrn_cpu::Tensors<T>& t,
                          long long n, long long h, float* terms, float* sums) {
    const long long C = p.lens()[1], W = p.lens()[3];
    const LrnStrides xs = p.x_strides(), ys = p.y_strides();
    for (long long c = 0; c < C; ++c)
      for (long long w = 0; w < W; ++w) {
        const float v = to_float(t.x[lrn::offset(xs, n, c, h, w)]);
        terms[c * W + w] = v * v;
      }
    const bool save = p.uses_workspace();
    for (long long c = 0; c < C; ++c) {
      channel_window(terms, sums, c, C, W, k.pre_pad, k.pad);
      for (long long w = 0; w < W; ++w) {
        const float scale = lrn::scale_of(sums[w], k);
        const long long yo = lrn::offset(ys, n, c, h, w);
        t.y[yo] =
            from_float<T>(lrn::forward_value(to_float(t.x[lrn::offset(xs, n, c, h, w)]), scale, k));
        if (save) t.scale[yo] = from_float<T>(scale);
      }
    }
  }

  template <class T>
  static void backward_row(const LrnProblem& p, const lrn::Consts& k, const lrn_cpu::Tensors<T>& t,
                           long long n, long long h, float* terms, float* sums) {
    const long long C = p.lens()[1], W = p.lens()[3];
    const LrnStrides xs = p.x_strides(), ys = p.y_strides(), dys = p.dy_strides(),
                     dxs = p.dx_strides();
    for (long long c = 0; c < C; ++c)
      for (long long w = 0; w < W; ++w) {
        const long long yo = lrn::offset(ys, n, c, h, w);
        terms[c * W + w] = to_float(t.dy[lrn::offset(dys, n, c, h, w)]) * to_float(t.y[yo]) /
                           to_float(t.scale[yo]);
      }
    for (long long c = 0; c < C; ++c) {
      channel_window(terms, sums, c, C, W, k.pad, k.pre_pad);  // the transposed window
      for (long long w = 0; w < W; ++w)
        t.dx[lrn::offset(dxs, n, c, h, w)] = from_float<T>(
            lrn::backward_value(to_float(t.dy[lrn::offset(dys, n, c, h, w)]),
                                to_float(t.scale[lrn::offset(ys, n, c, h, w)]),
                                to_float(t.x[lrn::offset(xs, n, c, h, w)]), sums[w], k));
    }
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<LrnSolver> make_lrn_cross_channel<BackendKind::Cpu>() {
  return std::make_unique<cpu::LrnCrossChannel>();
}

}  // namespace anydnn
