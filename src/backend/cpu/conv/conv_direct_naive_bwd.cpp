// ConvDirectNaiveConvBwd: direct backward-data convolution, one dx element at a time (a gather
// over the dy elements whose receptive field covers it). Any shape, layout and float type; the
// fallback when nothing faster applies.
#include <memory>

#include "backend/cpu/cpu_types.hpp"
#include "conv/conv_fallbacks.hpp"
#include "conv/conv_solver.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

template <class T>
void naive_bwd(const ConvProblem& p, const ConvBuffers& b, int threads) {
  T* dx = static_cast<T*>(b.x);
  const T* w = static_cast<const T*>(b.w);
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
  const long c_count = static_cast<long>(p.in_channels());
  const long c_per_group = c_count / static_cast<long>(p.groups());
  const long k_per_group = static_cast<long>(p.out_channels() / p.groups());

  // dy index along one axis for input position i and filter tap t: (i + pad - t * dil) / stride
  // when that divides exactly and lands inside [0, out).
  const auto tap = [](long i, long t, long pd, long s, long d, long o_len) -> long {
    const long num = i + pd - t * d;
    if (num < 0 || num % s != 0) return -1;
    const long o = num / s;
    return o < o_len ? o : -1;
  };

#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (long n = 0; n < n_count; ++n) {
    for (long c = 0; c < c_count; ++c) {
      const long k0 = (c / c_per_group) * k_per_group;
      const long cw = c % c_per_group;
      for (size_t iz = 0; iz < in[0]; ++iz) {
        for (size_t iy = 0; iy < in[1]; ++iy) {
          for (size_t ix = 0; ix < in[2]; ++ix) {
            float acc = 0.0f;
            for (long kk = 0; kk < k_per_group; ++kk) {
              const long k = k0 + kk;
              const T* dyk = dy + n * ys[0] + k * ys[1];
              const T* wk = w + k * ws[0] + cw * ws[1];
              for (size_t fz = 0; fz < f[0]; ++fz) {
                const long oz = tap(static_cast<long>(iz), static_cast<long>(fz), pad[0], st[0],
                                    dil[0], static_cast<long>(out[0]));
                if (oz < 0) continue;
                for (size_t fy = 0; fy < f[1]; ++fy) {
                  const long oy = tap(static_cast<long>(iy), static_cast<long>(fy), pad[1], st[1],
                                      dil[1], static_cast<long>(out[1]));
                  if (oy < 0) continue;
                  for (size_t fx = 0; fx < f[2]; ++fx) {
                    const long ox = tap(static_cast<long>(ix), static_cast<long>(fx), pad[2], st[2],
                                        dil[2], static_cast<long>(out[2]));
                    if (ox < 0) continue;
                    acc += to_float(dyk[oz * ys[2] + oy * ys[3] + ox * ys[4]]) *
                           to_float(wk[fz * ws[2] + fy * ws[3] + fx * ws[4]]);
                  }
                }
              }
            }
            dx[n * xs[0] + c * xs[1] + iz * xs[2] + iy * xs[3] + ix * xs[4]] = from_float<T>(acc);
          }
        }
      }
    }
  }
}

class ConvDirectNaiveBwd final : public ConvDirectNaiveBwdSpec {
 public:
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const int threads = ctx.config.num_threads;
    return [p, threads](const ConvBuffers& b) {
      dispatch_float_type(p.data_type(),
                          [&](auto tag) { naive_bwd<decltype(tag)>(p, b, threads); });
    };
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<ConvSolver> make_conv_direct_naive_bwd<BackendKind::Cpu>() {
  return std::make_unique<cpu::ConvDirectNaiveBwd>();
}

}  // namespace anydnn
