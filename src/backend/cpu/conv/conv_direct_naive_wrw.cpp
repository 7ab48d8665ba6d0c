// ConvDirectNaiveConvWrw: direct backward-weights convolution, one dw element at a time (a sum
// over the batch and the output positions). Any shape, layout and float type; overwrites dw, as
// MIOpen's solvers do. The fallback when nothing faster applies.
#include <memory>

#include "backend/cpu/cpu_types.hpp"
#include "conv/conv_fallbacks.hpp"
#include "conv/conv_solver.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void naive_wrw(const ConvProblem& p, const ConvBuffers& b, int threads) {
  const T* x = static_cast<const T*>(b.x);
  T* dw = static_cast<T*>(b.w);
  const T* dy = static_cast<const T*>(b.y);
  const auto xs = strides_ncdhw(p.x());
  const auto ws = strides_ncdhw(p.w());
  const auto ys = strides_ncdhw(p.y());
  const auto& in = p.in_size();
  const auto& f = p.filter_size();
  const auto& out = p.out_size();
  const auto& pad = p.pads();
  const auto& st = p.strides();
  const auto& dil = p.dilations();
  const long n_count = static_cast<long>(p.batch());
  const long k_count = static_cast<long>(p.out_channels());
  const long k_per_group = k_count / static_cast<long>(p.groups());
  const long c_per_group = static_cast<long>(p.in_channels() / p.groups());

#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (long k = 0; k < k_count; ++k) {
    for (long c = 0; c < c_per_group; ++c) {
      const long xc = (k / k_per_group) * c_per_group + c;
      for (size_t fz = 0; fz < f[0]; ++fz) {
        for (size_t fy = 0; fy < f[1]; ++fy) {
          for (size_t fx = 0; fx < f[2]; ++fx) {
            float acc = 0.0f;
            for (long n = 0; n < n_count; ++n) {
              const T* xn = x + n * xs[0] + xc * xs[1];
              const T* dyn = dy + n * ys[0] + k * ys[1];
              for (size_t oz = 0; oz < out[0]; ++oz) {
                const long iz = static_cast<long>(oz * st[0] + fz * dil[0]) - pad[0];
                if (iz < 0 || iz >= static_cast<long>(in[0])) continue;
                for (size_t oy = 0; oy < out[1]; ++oy) {
                  const long iy = static_cast<long>(oy * st[1] + fy * dil[1]) - pad[1];
                  if (iy < 0 || iy >= static_cast<long>(in[1])) continue;
                  for (size_t ox = 0; ox < out[2]; ++ox) {
                    const long ix = static_cast<long>(ox * st[2] + fx * dil[2]) - pad[2];
                    if (ix < 0 || ix >= static_cast<long>(in[2])) continue;
                    acc += to_float(xn[iz * xs[2] + iy * xs[3] + ix * xs[4]]) *
                           to_float(dyn[oz * ys[2] + oy * ys[3] + ox * ys[4]]);
                  }
                }
              }
            }
            dw[k * ws[0] + c * ws[1] + fz * ws[2] + fy * ws[3] + fx * ws[4]] = from_float<T>(acc);
          }
        }
      }
    }
  }
}

class ConvDirectNaiveWrw final : public ConvDirectNaiveWrwSpec {
 public:
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const int threads = ctx.config.num_threads;
    return [p, threads](const ConvBuffers& b) {
      dispatch_float_type(p.data_type(),
                          [&](auto tag) { naive_wrw<decltype(tag)>(p, b, threads); });
    };
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<ConvSolver> make_conv_direct_naive_wrw<BackendKind::Cpu>() {
  return std::make_unique<cpu::ConvDirectNaiveWrw>();
}

}  // namespace anydnn
