// ConvDirectNaiveConvFwd: direct forward convolution, one output element at a time. Handles
// every shape, stride, dilation, group count, layout (any strides) and data type, including
// int8 with int32 or float output. It is the last resort (Find times it only when nothing else
// applies) and the yardstick the faster solvers are tested against. Takes any fused epilogue
// (conv_epilogue.hpp) of a float output, element by element, so every fusable chain has a
// fused solver whatever its layout.
#include <cstdint>
#include <memory>

#include "backend/cpu/conv/conv_epilogue.hpp"
#include "backend/cpu/cpu_types.hpp"
#include "conv/conv_fallbacks.hpp"
#include "conv/conv_solver.hpp"
#include "conv/solver_specs.hpp"

namespace anydnn::cpu {

namespace {

inline int32_t load_acc(int8_t v) {
  return v;
}
template <class T>
inline float load_acc(T v) {
  return to_float(v);
}

template <class Out, class Acc>
inline Out store_acc(Acc v) {
  if constexpr (std::is_same_v<Out, int32_t>) {
    return v;
  } else if constexpr (std::is_integral_v<Acc>) {
    return from_float<Out>(static_cast<float>(v));
  } else {
    return from_float<Out>(v);
  }
}

template <class In, class Out, class Acc>
void naive_fwd(const ConvProblem& p, const ConvBuffers& b, int threads, CpuIsa isa) {
  const In* x = static_cast<const In*>(b.x);
  const In* w = static_cast<const In*>(b.w);
  Out* y = static_cast<Out*>(b.y);
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
  // The epilogue reads the residual in the output's own type, at the output's offset.
  const CpuEpilogue ep(b.epilogue, isa, nullptr);
  const Out* z = b.epilogue ? static_cast<const Out*>(b.epilogue->residual) : nullptr;

#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (long n = 0; n < n_count; ++n) {
    for (long k = 0; k < k_count; ++k) {
      const long c0 = (k / k_per_group) * c_per_group;
      for (size_t od = 0; od < out[0]; ++od) {
        for (size_t oh = 0; oh < out[1]; ++oh) {
          for (size_t ow = 0; ow < out[2]; ++ow) {
            Acc acc = 0;
            for (long c = 0; c < c_per_group; ++c) {
              const In* xc = x + n * xs[0] + (c0 + c) * xs[1];
              const In* wc = w + k * ws[0] + c * ws[1];
              for (size_t fz = 0; fz < f[0]; ++fz) {
                const long iz = static_cast<long>(od * st[0] + fz * dil[0]) - pad[0];
                if (iz < 0 || iz >= static_cast<long>(in[0])) continue;
                for (size_t fy = 0; fy < f[1]; ++fy) {
                  const long iy = static_cast<long>(oh * st[1] + fy * dil[1]) - pad[1];
                  if (iy < 0 || iy >= static_cast<long>(in[1])) continue;
                  for (size_t fx = 0; fx < f[2]; ++fx) {
                    const long ix = static_cast<long>(ow * st[2] + fx * dil[2]) - pad[2];
                    if (ix < 0 || ix >= static_cast<long>(in[2])) continue;
                    acc += load_acc(xc[iz * xs[2] + iy * xs[3] + ix * xs[4]]) *
                           load_acc(wc[fz * ws[2] + fy * ws[3] + fx * ws[4]]);
                  }
                }
              }
            }
            const size_t at = n * ys[0] + k * ys[1] + od * ys[2] + oh * ys[3] + ow * ys[4];
            if constexpr (std::is_floating_point_v<Acc>) {
              if (ep.active()) {
                const float zv = z ? to_float(z[at]) : 0.0f;
                ep.rows_with(&acc, z ? &zv : nullptr, 0, 1, 1, k, 0);
              }
            }
            y[at] = store_acc<Out>(acc);
          }
        }
      }
    }
  }
}

class ConvDirectNaiveFwd final : public ConvDirectNaiveFwdSpec {
 public:
  Applicability epilogue_support(const ExecutionContext&, const ConvProblem& p,
                                 const ConvEpilogueNeeds& needs) const override {
    ANYDNN_REJECT_IF(p.data_type() == miopenInt8, "int8 data");
    return cpu_epilogue_support(p, needs, true);
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    const int threads = ctx.config.num_threads;
    const CpuIsa isa = ctx.config.cpu_isa;
    if (p.data_type() == miopenInt8) {
      if (p.y().type() == miopenInt32)
        return [p, threads, isa](const ConvBuffers& b) {
          naive_fwd<int8_t, int32_t, int32_t>(p, b, threads, isa);
        };
      return [p, threads, isa](const ConvBuffers& b) {
        naive_fwd<int8_t, float, int32_t>(p, b, threads, isa);
      };
    }
    return [p, threads, isa](const ConvBuffers& b) {
      dispatch_float_type(p.data_type(), [&](auto tag) {
        using T = decltype(tag);
        naive_fwd<T, T, float>(p, b, threads, isa);
      });
    };
  }
};

}  // namespace

}  // namespace anydnn::cpu

namespace anydnn {

template <>
std::unique_ptr<ConvSolver> make_conv_direct_naive_fwd<BackendKind::Cpu>() {
  return std::make_unique<cpu::ConvDirectNaiveFwd>();
}

}  // namespace anydnn
